// A terminal auth method, run for the person (issue 28.5): the fixture agent answers authRequired
// and offers `agent.mjs --login`, a real login command that insists on a terminal, asks for a
// code and writes the credential file the agent accepts. Through the app's channels: the person
// is asked (the exact command line and folder), the command runs under a real pty (`script`) of
// the panel's size, which follows the panel (SIGWINCH); the output arrives in chunks whose offsets
// join up; the person's keystrokes reach it as a terminal sends them (Ctrl-C interrupts it), it
// exits 0, and Retry completes the turn. Declined: nothing starts; bad sizes are refused. Closing
// the panel or deleting the session leaves no process behind (read in /proc).
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiHandlers } from '../../electron/gateway/api/handlers';
import type { ConsentQuestion } from '../../electron/gateway';
import type { Envelope, GatewayEvent, LoginTerminalView } from '../../shared/ipc';
import { openTestGateway, tempDir, waitFor, type TestGateway } from '../helpers/gateway';
import { FIXTURE_AGENT } from '../helpers/registry-server';

let t: TestGateway | undefined;
afterEach(() => {
  t?.cleanup();
  t = undefined;
});

const CODE = '4242-7731';

/** Live processes whose environment holds `marker` (this user's own), with their command lines. */
function processesWith(marker: string): { pid: number; cmdline: string; stdin: string }[] {
  const out = [];
  for (const name of fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2)[0] === 'Z') continue;
      if (!fs.readFileSync(`/proc/${name}/environ`, 'utf8').includes(marker)) continue;
      const cmdline = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ');
      let stdin = '';
      try {
        stdin = fs.readlinkSync(`/proc/${name}/fd/0`);
      } catch {
        // not ours to read
      }
      out.push({ pid: Number(name), cmdline, stdin });
    } catch {
      // gone, or not ours
    }
  }
  return out;
}

async function failedSession(allow: boolean) {
  t = openTestGateway();
  const gw = t.gw;
  const credential = path.join(tempDir(), 'credential');
  const asked: ConsentQuestion[] = [];
  gw.consent.plug(async (q) => {
    asked.push(q);
    return allow;
  });
  gw.acp.profiles.save({
    id: 'needs-login',
    name: 'Needs Login',
    command: process.execPath,
    args: [FIXTURE_AGENT],
    env: { ACP_FIXTURE_AUTH: '1', ACP_FIXTURE_CREDENTIAL: credential, ACP_FIXTURE_LOGIN_CODE: CODE },
  });
  const events: GatewayEvent[] = [];
  gw.events.on((e) => events.push(e));
  const api = createApiHandlers(gw, {
    app: { name: 'Sightline', version: '0', mode: 'web', dataDir: t.dataDir },
  });
  const call = <T>(channel: string, args: unknown) =>
    api.dispatch(channel as never, args as never) as Promise<Envelope<T>>;
  const cwd = tempDir();
  const info = await gw.sessions.start({ acpProfileId: 'needs-login', cwd, message: 'answer: hello' });
  await waitFor(() => gw.runs.list(info.key)[0]?.status === 'failed', 15_000, 'the failed first run');
  asked.length = 0;
  const chunks = (id: string) => events.flatMap((e) => (e.type === 'login:output' && e.id === id ? [e] : []));
  const output = (id: string) =>
    chunks(id)
      .map((e) => e.data)
      .join('');
  const logins = () => processesWith(credential).filter((p) => p.cmdline.includes('--login'));
  return { gw, key: info.key, cwd, call, asked, events, chunks, output, logins, credential };
}

const start = { methodId: 'fixture-terminal-login' };
/** What the fixture prints first: its size, in 24-bit and 256-colour SGR, as the pty relays it. */
const banner = (size: string) =>
  `\x1b[1;38;2;215;119;87mFixture login\x1b[0m on a \x1b[38;5;34m${size}\x1b[0m terminal.\r\n`;
const PROMPT = 'Enter the code from your browser: ';

describe('a terminal login method, run in a terminal the person sees', () => {
  it('asks first, runs on a pty, takes the typed code, exits 0; Retry completes the turn; nothing is left', async () => {
    const s = await failedSession(true);
    const got = await s.call<LoginTerminalView>('acp:login:start', {
      sessionKey: s.key,
      ...start,
      cols: 100,
      rows: 30,
    });
    if (!got.ok) throw new Error(got.error.message);
    // The person saw the exact command line and folder; the code travels in env, masked for the page.
    expect(s.asked).toHaveLength(1);
    expect(s.asked[0]).toMatchObject({
      kind: 'terminal',
      title: "Log in in a terminal: run the agent's login command in a terminal",
      sessionKey: s.key,
      command: { program: process.execPath, args: [FIXTURE_AGENT, '--login'], cwd: s.cwd },
    });
    expect(s.asked[0]!.command.env?.ACP_FIXTURE_LOGIN_CODE).toBe(CODE);
    expect(got.value).toMatchObject({
      command: [process.execPath, FIXTURE_AGENT, '--login'],
      cwd: s.cwd,
      cols: 100,
      rows: 30,
    });
    const id = got.value.id;
    await waitFor(() => s.output(id).endsWith(PROMPT), 10_000, 'the prompt');
    // The pty had the panel's size before the command started, and follows the panel's.
    expect(s.output(id)).toBe(banner('100x30') + PROMPT);
    expect(await s.call('acp:login:resize', { id, cols: 120, rows: 40 })).toEqual({
      ok: true,
      value: { resized: true },
    });
    await waitFor(() => s.output(id).endsWith('Resized to 120x40.\r\n'), 10_000, 'the resize');
    // (stty sets rows and cols one at a time, so the program may see 100x40 on the way.)
    expect(s.output(id)).toMatch(
      /^.+ terminal\.\r\nEnter the code from your browser: (\r\nResized to 100x40\.\r\n)?\r\nResized to 120x40\.\r\n$/,
    );
    expect(s.output(id).startsWith(banner('100x30') + PROMPT)).toBe(true);
    const sized = await s.call<LoginTerminalView>('acp:login:get', { id });
    expect(sized.ok && [sized.value.cols, sized.value.rows]).toEqual([120, 40]);
    // A real terminal: the login command's stdin is a pty, and no command line holds the code.
    const running = s.logins();
    expect(running.map((p) => p.stdin)).toEqual([expect.stringMatching(/^\/dev\/pts\/\d+$/)]);
    expect(processesWith(s.credential).filter((p) => p.cmdline.includes(CODE))).toEqual([]);
    expect(await s.call('acp:login:input', { id, data: `${CODE}\r` })).toEqual({
      ok: true,
      value: { sent: true },
    });
    await waitFor(
      () => s.events.some((e) => e.type === 'login:exit' && e.id === id),
      10_000,
      'the login exit',
    );
    expect(s.events.find((e) => e.type === 'login:exit')).toEqual({
      type: 'login:exit',
      id,
      sessionKey: s.key,
      exitCode: 0,
      signal: null,
    });
    // The pty echoed the typed code; the command said it logged in.
    expect(s.output(id)).toContain(`${CODE}\r\nLogged in.\r\n`);
    // Each chunk starts where the one before it ended; the kept output and its end offset agree.
    let at = 0;
    for (const c of s.chunks(id)) {
      expect(c.at).toBe(at);
      at += c.data.length;
    }
    const view = await s.call<LoginTerminalView>('acp:login:get', { id });
    expect(view.ok && { output: view.value.output, end: view.value.end }).toEqual({
      output: s.output(id),
      end: at,
    });
    expect(fs.readFileSync(s.credential, 'utf8')).toBe('fixture-credential\n');
    await waitFor(() => s.logins().length === 0, 5_000, 'no login process left');
    expect(await s.call('runs:retry', { sessionKey: s.key })).toEqual({ ok: true, value: { retried: true } });
    await waitFor(() => s.gw.runs.list(s.key).at(-1)?.status === 'idle', 15_000, 'the retried run');
    expect(s.gw.transcripts.all(s.key).at(-1)!.text).toBe('You said: answer: hello');
    expect(await s.call('acp:login:input', { id, data: 'x' })).toEqual({
      ok: false,
      error: { code: 'unavailable', message: 'The login command has ended' },
    });
  });

  it('declined: nothing starts; unknown ids and oversized input are refused', async () => {
    const s = await failedSession(false);
    expect(await s.call('acp:login:start', { sessionKey: s.key, ...start })).toEqual({
      ok: false,
      error: { code: 'forbidden', message: 'declined by the person' },
    });
    expect(s.asked).toHaveLength(1);
    expect(s.logins()).toEqual([]);
    expect(s.events.filter((e) => e.type === 'login:output' || e.type === 'login:exit')).toEqual([]);
    expect(await s.call('acp:login:input', { id: 'login-nope', data: 'x' })).toEqual({
      ok: false,
      error: { code: 'not_found', message: 'Unknown login terminal: login-nope' },
    });
    expect(await s.call('acp:login:input', { id: 'login-nope', data: 'x'.repeat(4097) })).toEqual({
      ok: false,
      error: { code: 'invalid_argument', message: expect.stringContaining('at most 4096 characters') },
    });
    const refused = (message: string) => ({ ok: false, error: { code: 'invalid_argument', message } });
    expect(await s.call('acp:login:start', { sessionKey: s.key, ...start, cols: 19 })).toEqual(
      refused('cols: cols must be at least 20'),
    );
    expect(await s.call('acp:login:start', { sessionKey: s.key, ...start, rows: 201 })).toEqual(
      refused('rows: rows must be at most 200'),
    );
    expect(await s.call('acp:login:resize', { id: 'login-nope', cols: 80.5, rows: 24 })).toEqual(
      refused('cols: cols must be a whole number'),
    );
    expect(await s.call('acp:login:resize', { id: 'login-nope', cols: '80', rows: 24 })).toEqual(
      refused('cols: cols must be a number'),
    );
    expect(await s.call('acp:login:resize', { id: 'login-nope', cols: 80, rows: 24 })).toEqual({
      ok: false,
      error: { code: 'not_found', message: 'Unknown login terminal: login-nope' },
    });
    expect(s.asked).toHaveLength(1);
    expect(await s.call('acp:login:start', { sessionKey: s.key, methodId: 'fixture-agent-login' })).toEqual({
      ok: false,
      error: {
        code: 'invalid_argument',
        message: 'The agent offers no terminal login method fixture-agent-login',
      },
    });
  });

  it('without a size it is 80x24; Ctrl-C reaches the program as a terminal sends it, and interrupts it', async () => {
    const s = await failedSession(true);
    const got = await s.call<LoginTerminalView>('acp:login:start', { sessionKey: s.key, ...start });
    if (!got.ok) throw new Error(got.error.message);
    const id = got.value.id;
    expect([got.value.cols, got.value.rows]).toEqual([80, 24]);
    await waitFor(() => s.output(id).endsWith(PROMPT), 10_000, 'the prompt');
    expect(s.output(id)).toBe(banner('80x24') + PROMPT);
    expect(await s.call('acp:login:input', { id, data: '\x03' })).toEqual({
      ok: true,
      value: { sent: true },
    });
    await waitFor(() => s.events.some((e) => e.type === 'login:exit'), 10_000, 'the interrupted login');
    // The pty's line discipline turned the byte into SIGINT (and echoed it); `script` says 128 + 2.
    expect(s.events.find((e) => e.type === 'login:exit')).toMatchObject({ exitCode: 130, signal: null });
    expect(s.output(id)).toBe(`${banner('80x24')}${PROMPT}^C`);
    expect(fs.existsSync(s.credential)).toBe(false);
    expect(await s.call('acp:login:resize', { id, cols: 90, rows: 30 })).toEqual({
      ok: false,
      error: { code: 'unavailable', message: 'The login command has ended' },
    });
  });

  it('closing the panel, and deleting the session, kill the login command`s whole tree', async () => {
    const s = await failedSession(true);
    const first = await s.call<LoginTerminalView>('acp:login:start', { sessionKey: s.key, ...start });
    if (!first.ok) throw new Error(first.error.message);
    await waitFor(() => s.logins().length === 1, 10_000, 'the login process');
    expect(await s.call('acp:login:close', { id: first.value.id })).toEqual({
      ok: true,
      value: { closed: true },
    });
    await waitFor(() => s.logins().length === 0, 5_000, 'no login process after close');
    const second = await s.call<LoginTerminalView>('acp:login:start', { sessionKey: s.key, ...start });
    if (!second.ok) throw new Error(second.error.message);
    await waitFor(() => s.logins().length === 1, 10_000, 'the second login process');
    expect((await s.call('sessions:delete', { sessionKey: s.key })).ok).toBe(true);
    await waitFor(() => s.logins().length === 0, 5_000, 'no login process after delete');
    expect(fs.existsSync(s.credential)).toBe(false);
  });
});
