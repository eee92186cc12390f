// Issue 14.3: a new or changed command line takes effect only after the person confirms it, shown
// with the exact program and arguments; the in-process contract stays trusted code.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiHandlers } from '../../electron/gateway/api/handlers';
import { closeAllAcpChildren, liveAcpChildCount } from '../../electron/gateway/runtime/acp';
import { openTestGateway, waitFor, type TestGateway } from '../helpers/gateway';
import { AGENT, recordingPort } from './helpers';

const APP = { name: 'Sightline', version: 't', mode: 'web' as const, dataDir: '' };
const FIXTURE = { id: 'fixture', name: 'Fixture agent', command: process.execPath, args: [AGENT] };

let t: TestGateway;
// Closing a gateway does not wait for its ACP children to exit; wait here, so a later test's
// count of live children sees only its own.
afterEach(async () => {
  t?.cleanup();
  await closeAllAcpChildren();
});

function setup(otherwise = true) {
  t = openTestGateway();
  const port = recordingPort(otherwise);
  t.gw.consent.plug(port.ask);
  return { gw: t.gw, port, api: createApiHandlers(t.gw, { app: APP }) };
}

const settled = (key: string) => () =>
  ['idle', 'failed', 'cancelled'].includes(t.gw.runtime.sessionStatus(key));

describe('ACP profiles saved through the app', () => {
  it('are stored only after the person allowed the exact program, arguments and environment', async () => {
    const { gw, port, api } = setup();
    port.answers.push(false);
    expect(await api.dispatch('acp:profiles:save', { ...FIXTURE, env: { LEVEL: 'debug' } })).toEqual({
      ok: false,
      error: { code: 'forbidden', message: 'declined by the person' },
    });
    expect(gw.acp.profiles.list()).toEqual([]);
    expect(port.questions).toHaveLength(1);
    expect(port.questions[0]).toMatchObject({
      kind: 'acp-profile',
      title: 'Run the ACP agent "Fixture agent" (its terminal commands run without asking you)',
      command: { program: process.execPath, args: [AGENT], env: { LEVEL: 'debug' } },
      allowAgents: false,
    });

    expect(await api.dispatch('acp:profiles:save', { ...FIXTURE, env: { LEVEL: 'debug' } })).toMatchObject({
      ok: true,
      value: { id: 'fixture', allowAgents: false },
    });
    expect(gw.acp.profiles.get('fixture')).toMatchObject({ env: { LEVEL: 'debug' }, allowAgents: false });
    expect(port.questions).toHaveLength(2);

    // A new name is not a new command line; new arguments, a new folder or agents allowed are.
    await api.dispatch('acp:profiles:save', { ...FIXTURE, name: 'Renamed', keepEnv: ['LEVEL'] });
    expect(port.questions).toHaveLength(2);
    await api.dispatch('acp:profiles:save', { ...FIXTURE, args: [AGENT, '--verbose'], keepEnv: ['LEVEL'] });
    expect(port.questions.at(-1)!.command.args).toEqual([AGENT, '--verbose']);
    await api.dispatch('acp:profiles:save', {
      ...FIXTURE,
      args: [AGENT, '--verbose'],
      keepEnv: ['LEVEL'],
      allowAgents: true,
    });
    expect(port.questions).toHaveLength(4);
    expect(port.questions.at(-1)).toMatchObject({
      title:
        'Run the ACP agent "Fixture agent" (agents may start it too; its terminal commands run without asking you)',
      allowAgents: true,
    });
  });

  it('switching "ask before terminal commands" off, or widening its reach, is a question (issue 29.3)', async () => {
    const { gw, port } = setup();
    const api = createApiHandlers(gw, { app: APP });
    const save = (extra: object) => api.dispatch('acp:profiles:save', { ...FIXTURE, ...extra });
    port.answers.push(true);
    expect(await save({ askTerminal: true })).toMatchObject({ ok: true, value: { askTerminal: true } });
    expect(port.questions.at(-1)!.title).toBe('Run the ACP agent "Fixture agent"');
    await save({ askTerminal: true, name: 'Fixture agent' });
    expect(port.questions).toHaveLength(1); // nothing lowered: no question

    // The same command line, the safeguard off: asked; declined, it stays on.
    port.answers.push(false);
    expect(await save({ askTerminal: false })).toMatchObject({
      ok: false,
      error: { code: 'forbidden', message: 'declined by the person' },
    });
    expect(port.questions.at(-1)!.title).toBe(
      'Run the ACP agent "Fixture agent" (its terminal commands run without asking you)',
    );
    expect(gw.acp.profiles.get('fixture')).toMatchObject({ askTerminal: true, reach: 'agent' });

    // Its agents' credentials reaching every session: asked, and named.
    port.answers.push(true);
    expect(await save({ askTerminal: true, reach: 'all' })).toMatchObject({
      ok: true,
      value: { reach: 'all' },
    });
    expect(port.questions).toHaveLength(3);
    expect(port.questions.at(-1)!.title).toBe(
      'Run the ACP agent "Fixture agent" (its tools reach every session)',
    );
    // Narrowing is never asked.
    await save({ askTerminal: true, reach: 'tree' });
    expect(port.questions).toHaveLength(3);
  });

  it('the in-process contract is trusted: its profiles start without a question', async () => {
    const { gw, port } = setup();
    gw.acp.profiles.save({ ...FIXTURE, env: {}, allowAgents: true });
    const r = await gw.tools.call('agent:main:main', 'sessions_spawn', { task: 'answer hi', runtime: 'acp' });
    expect(r.ok).toBe(true);
    const key = (r as { details: { childSessionKey: string } }).details.childSessionKey;
    await waitFor(settled(key), 10_000, 'run');
    expect(gw.runtime.status(key)).toMatchObject({ status: 'idle' });
    expect(port.questions).toEqual([]);
  });
});

describe('an agent process whose command line nobody allowed', () => {
  it('waits for the person with the exact spawn command; declined, nothing runs', async () => {
    const { gw, port } = setup(false);
    gw.acp.profiles.save({ ...FIXTURE, env: { LEVEL: 'x' }, allowAgents: true });
    // A profile stored before consent existed (migration 008 gives it no remembered revision).
    gw.db.prepare(`UPDATE acp_profiles SET command_rev = 'from-before' WHERE id = 'fixture'`).run();

    const r = await gw.tools.call('agent:main:main', 'sessions_spawn', { task: 'answer hi', runtime: 'acp' });
    const key = (r as { details: { childSessionKey: string } }).details.childSessionKey;
    await waitFor(settled(key), 10_000, 'declined run');
    const childDir = fs.realpathSync(path.join(t.dataDir, 'acp-work', key.split(':').at(-1)!));
    expect(port.questions).toEqual([
      expect.objectContaining({
        kind: 'acp-profile',
        sessionKey: key,
        command: { program: process.execPath, args: [AGENT], cwd: childDir, env: { LEVEL: 'x' } },
      }),
    ]);
    expect(gw.runtime.status(key)).toMatchObject({ status: 'failed', error: 'declined by the person' });
    expect(liveAcpChildCount()).toBe(0);

    // Allowed once, the revision is remembered: the next start asks nobody.
    port.otherwise = true;
    await gw.human.send(key, 'answer again');
    await waitFor(() => gw.runtime.runs(key).length === 2 && settled(key)(), 10_000, 'allowed run');
    expect(gw.runtime.status(key)).toMatchObject({ status: 'idle' });
    expect(port.questions).toHaveLength(2);
  });
});

describe('the page prompt (browser mode)', () => {
  it('holds the question with masked values until the page answers it', async () => {
    t = openTestGateway();
    const gw = t.gw;
    gw.consent.plug(gw.consent.pagePrompt);
    const api = createApiHandlers(gw, { app: APP });
    const pushed: unknown[] = [];
    gw.events.on((e) => e.type.startsWith('consent:') && pushed.push(e));
    const saving = api.dispatch('acp:profiles:save', { ...FIXTURE, env: { TOKEN: 'tok-0123456789abcdef' } });
    await waitFor(() => gw.consent.pending().length === 1, 2000, 'question');
    const listed = await api.dispatch('consent:list', {});
    expect(listed).toEqual({
      ok: true,
      value: [
        {
          id: expect.stringMatching(/^consent-/),
          kind: 'acp-profile',
          title: 'Run the ACP agent "Fixture agent" (its terminal commands run without asking you)',
          program: process.execPath,
          args: [AGENT],
          env: [{ name: 'TOKEN', value: '••••cdef' }],
          allowAgents: false,
          createdAt: expect.any(Number),
        },
      ],
    });
    expect(JSON.stringify(pushed)).not.toContain('0123456789');
    const id = gw.consent.pending()[0]!.id;
    expect(await api.dispatch('consent:respond', { requestId: id, allow: true })).toEqual({
      ok: true,
      value: { resolved: true },
    });
    expect(await saving).toMatchObject({ ok: true, value: { id: 'fixture', env: { TOKEN: '••••cdef' } } });
    expect(await api.dispatch('consent:respond', { requestId: id, allow: true })).toEqual({
      ok: false,
      error: { code: 'not_found', message: `Unknown consent request: ${id}` },
    });
  });

  it('is not how Electron asks: with a native port the page has nothing to answer', async () => {
    const { gw, port, api } = setup(false);
    const saving = api.dispatch('acp:profiles:save', FIXTURE);
    expect(await api.dispatch('consent:list', {})).toEqual({ ok: true, value: [] });
    expect(await saving).toMatchObject({ ok: false, error: { message: 'declined by the person' } });
    expect(port.questions).toHaveLength(1);
    expect(gw.acp.profiles.list()).toEqual([]);
  });
});
