// The IPC channels for starting sessions and their lifecycle, against a real gateway.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiHandlers } from '../../electron/gateway/api/handlers';
import type { Envelope } from '../../shared/ipc';
import type { SessionView } from '../../shared/ipc/types';
import { openTestGateway, tempDir, waitFor, type TestGateway } from '../helpers/gateway';
import { MAIN } from '../helpers/spec';

const APP = { name: 'Sightline', version: '0', mode: 'web' as const, dataDir: '/tmp/x' };
let t: TestGateway;
let dirs: string[] = [];
afterEach(() => {
  t?.cleanup();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  dirs = [];
});

function setup(pickFolder?: () => Promise<string | undefined>) {
  t = openTestGateway();
  t.gw.agents.save({ id: 'main', providerSettings: { stepMs: '10', steps: '1' } });
  const api = createApiHandlers(t.gw, { app: APP, ...(pickFolder ? { pickFolder } : {}) });
  return async <T>(channel: string, args: unknown): Promise<T> => {
    const r = (await api.dispatch(channel, args)) as Envelope<T>;
    if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
    return r.value;
  };
}

describe('sessions:start and the lifecycle channels', () => {
  it('start, runs:list, impact, archive, reset and delete', async () => {
    const call = setup();
    const cwd = fs.realpathSync(tempDir());
    dirs.push(cwd);
    const view = await call<SessionView>('sessions:start', {
      agentId: 'main',
      cwd,
      label: 'Notes',
      message: 'Write notes',
      parentKey: MAIN,
    });
    expect(view).toMatchObject({ kind: 'subagent', parentKey: MAIN, label: 'Notes', cwd, stateVersion: 2 });
    await waitFor(() => t.gw.runtime.sessionStatus(view.key) === 'idle', 5000, 'run');
    expect(await call('runs:list', { sessionKey: view.key })).toMatchObject([{ status: 'idle' }]);

    expect(await call('sessions:impact', { sessionKey: view.key })).toEqual({
      sessionKey: view.key,
      messages: 2,
      cursorsHeld: 0,
      cursorsOn: 1,
      children: 0,
      upstreamLink: false,
      runs: 1,
    });
    expect(await call('sessions:impact', { sessionKey: MAIN })).toMatchObject({
      cursorsHeld: 1,
      children: 1,
    });

    const archived = await call<SessionView>('sessions:archive', { sessionKey: view.key, archived: true });
    expect(archived.archived).toBe(true);
    expect(t.gw.sessions.list().find((s) => s.key === view.key)?.archived).toBe(true);
    const listed = await t.gw.tools.call(MAIN, 'sessions_list', {});
    const entry = (
      listed.ok ? (listed.details as { sessions: { key: string; archived?: boolean }[] }) : undefined
    )?.sessions.find((s) => s.key === view.key);
    expect(entry?.archived).toBe(true);
    const shown = await call<SessionView>('sessions:archive', { sessionKey: view.key, archived: false });
    expect(shown.archived).toBeUndefined();

    // Reset the parent: its transcript and the cursors it holds go.
    const reset = await call<SessionView>('sessions:reset', { sessionKey: MAIN });
    expect(reset.key).toBe(MAIN);
    expect(t.gw.state.cursor(MAIN, view.key)).toBeUndefined();
    expect(await call('sessions:impact', { sessionKey: view.key })).toMatchObject({ cursorsOn: 0 });

    expect(await call('sessions:delete', { sessionKey: view.key })).toEqual({ deleted: true });
    expect(t.gw.sessions.get(view.key)).toBeUndefined();
    await expect(call('sessions:impact', { sessionKey: view.key })).rejects.toThrow(
      `not_found: Unknown sessionKey: ${view.key}`,
    );
  });

  it('a start the gateway refuses comes back as a typed error', async () => {
    const call = setup();
    await expect(call('sessions:start', { agentId: 'ghost', message: 'x' })).rejects.toThrow(
      'not_found: Unknown agent: ghost',
    );
    await expect(
      call('sessions:start', { agentId: 'main', message: 'x', cwd: '/no/such/folder' }),
    ).rejects.toThrow('invalid_argument: cwd does not exist: /no/such/folder');
    await expect(
      call('sessions:start', { agentId: 'main', message: 'x', parentKey: 'agent:main:nope' }),
    ).rejects.toThrow('not_found: Unknown sessionKey: agent:main:nope');
  });

  it('folders:check says whether a session can run in a folder; folders:pick is the host picker', async () => {
    const dir = fs.realpathSync(tempDir());
    dirs.push(dir);
    const file = path.join(dir, 'f.txt');
    fs.writeFileSync(file, '');
    const call = setup();
    expect(await call('folders:check', { path: dir })).toEqual({ path: dir, ok: true });
    expect(await call('folders:check', { path: file })).toEqual({
      path: file,
      ok: false,
      reason: `cwd is not a folder: ${file}`,
    });
    expect(await call('folders:check', { path: 'relative' })).toEqual({
      path: 'relative',
      ok: false,
      reason: 'cwd must be an absolute path: relative',
    });
    await expect(call('folders:pick', {})).rejects.toThrow(
      'unavailable: No folder picker in browser mode: type the folder path',
    );
    const picks = [dir, undefined];
    const withPicker = setup(async () => picks.shift());
    expect(await withPicker('folders:pick', {})).toEqual({ path: dir });
    expect(await withPicker('folders:pick', {})).toEqual({});
  });
});
