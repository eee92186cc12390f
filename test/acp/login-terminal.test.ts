// A terminal auth method, run for the person (issue 28.5): the fixture agent answers authRequired
// and offers `agent.mjs --login`, a real login command that insists on a terminal, asks for a
// code and writes the credential file the agent accepts. Through the app's channels: the person
// is asked (the exact command line and folder), the command runs under a real pty (`script`), the
// person's keystrokes reach it, it exits 0, and Retry completes the turn. Declined: nothing
// starts. Closing the panel or deleting the session leaves no process behind (read in /proc).
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
  const output = (id: string) =>
    events.flatMap((e) => (e.type === 'login:output' && e.id === id ? [e.data] : [])).join('');
  const logins = () => processesWith(credential).filter((p) => p.cmdline.includes('--login'));
  return { gw, key: info.key, cwd, call, asked, events, output, logins, credential };
}

const start = { methodId: 'fixture-terminal-login' };

describe('a terminal login method, run in a terminal the person sees', () => {
  it('asks first, runs on a pty, takes the typed code, exits 0; Retry completes the turn; nothing is left', async () => {
    const s = await failedSession(true);
    const got = await s.call<LoginTerminalView>('acp:login:start', { sessionKey: s.key, ...start });
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
    expect(got.value).toMatchObject({ command: [process.execPath, FIXTURE_AGENT, '--login'], cwd: s.cwd });
    const id = got.value.id;
    await waitFor(() => s.output(id).includes('Enter the code from your browser: '), 10_000, 'the prompt');
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
    expect((await s.call<LoginTerminalView>('acp:login:get', { id })).ok).toBe(true);
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
    expect(await s.call('acp:login:start', { sessionKey: s.key, methodId: 'fixture-agent-login' })).toEqual({
      ok: false,
      error: {
        code: 'invalid_argument',
        message: 'The agent offers no terminal login method fixture-agent-login',
      },
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
