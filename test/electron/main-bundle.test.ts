// The shell is executed, not only read (issue 27.8): the main bundle is built as
// `npm run build:electron` builds it and booted under plain Node, with a recording stand-in of
// the `electron` module (test/fixtures/electron-standin). The real main process then opens the
// gateway in userData, registers every contract channel, hardens the session, opens one window
// and serves app://; the test calls it as the window would, and as any other web contents would,
// then quits it and checks that the shutdown steps ran.
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs script without types
import { buildMainBundle } from '../../scripts/build-electron.mjs';
import { CHANNEL_LIST, PUSH_CHANNEL } from '../../shared/ipc/channels';
import type { AppInfo, Envelope, FleetSnapshot, PushBatch } from '../../shared/ipc';
import { DB_FILE } from '../../electron/gateway/db/open';
import { waitFor } from '../helpers/poll';
import { tempDir } from '../helpers/temp';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const STANDIN = path.join(ROOT, 'test/fixtures/electron-standin/register.cjs');
const ENTRY = 'app://sightline/index.html';

interface Recorded {
  singleInstanceLock: number;
  schemes: { scheme: string; privileges: Record<string, boolean> }[];
  protocolHandlers: string[];
  sessionHardened: Record<string, boolean>;
  windows: { id: number; options: { webPreferences: Record<string, unknown> }; urls: string[] }[];
  handlers: string[];
  removedHandlers: string[];
  sends: { id: number; channel: string; payload: PushBatch }[];
  errors: { title: string; content: string }[];
  quitEvents: string[];
}

let child: ChildProcess;
let userData: string;
let buildDir: string;
let seq = 0;
const pending = new Map<number, (value: unknown) => void>();
const output: string[] = [];

function ask<T>(msg: Record<string, unknown>): Promise<T> {
  const id = ++seq;
  return new Promise((resolve) => {
    pending.set(id, resolve as (v: unknown) => void);
    child.send({ ...msg, id });
  });
}
const state = () => ask<Recorded>({ cmd: 'state' });
const invoke = <T>(channel: string, args: unknown[], senderId: number, frameUrl = ENTRY) =>
  ask<Envelope<T>>({ cmd: 'invoke', channel, args, senderId, frameUrl });

/** Until the main process recorded what `done` looks for (it starts on app.whenReady). */
async function until(done: (r: Recorded) => boolean, what: string): Promise<Recorded> {
  return waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`main exited (${child.exitCode}):\n${output.join('')}`);
      const r = await state();
      if (r.errors.length) throw new Error(`start-up failed: ${JSON.stringify(r.errors)}`);
      return done(r) ? r : undefined;
    },
    15_000,
    what,
  );
}

beforeAll(async () => {
  // Inside the project, so the bundle's require('better-sqlite3') finds node_modules.
  fs.mkdirSync(path.join(ROOT, '.tmp'), { recursive: true });
  buildDir = fs.mkdtempSync(path.join(ROOT, '.tmp', 'main-bundle-'));
  const bundle = path.join(buildDir, 'main', 'main.cjs');
  await buildMainBundle(bundle);
  userData = tempDir('sightline-userdata-');
  child = fork(bundle, [], {
    execArgv: ['--require', STANDIN],
    env: { ...process.env, STANDIN_USER_DATA: userData, STANDIN_APP_PATH: buildDir },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  child.stdout!.on('data', (d) => output.push(String(d)));
  child.stderr!.on('data', (d) => output.push(String(d)));
  child.on('message', (m: { reply?: number; value?: unknown }) => {
    if (m.reply !== undefined) pending.get(m.reply)?.(m.value);
  });
}, 60_000);

afterAll(() => {
  if (child.exitCode === null) child.kill('SIGKILL');
  fs.rmSync(buildDir, { recursive: true, force: true });
  fs.rmSync(userData, { recursive: true, force: true });
});

describe('the built main process under a recording electron', () => {
  let window: Recorded['windows'][number];

  it('opens the gateway in userData, registers every channel, hardens the session, opens one window', async () => {
    const r = await until((x) => x.windows.length > 0 && x.handlers.length > 0, 'the window');
    expect(fs.existsSync(path.join(userData, DB_FILE))).toBe(true);
    expect(r.singleInstanceLock).toBe(1);
    expect(r.handlers).toEqual([...CHANNEL_LIST].sort());
    expect(r.schemes).toEqual([
      {
        scheme: 'app',
        privileges: {
          standard: true,
          secure: true,
          supportFetchAPI: true,
          corsEnabled: true,
          codeCache: true,
        },
      },
    ]);
    expect(r.protocolHandlers).toEqual(['app']);
    expect(r.sessionHardened).toEqual({
      headers: true,
      permissions: true,
      permissionChecks: true,
      devices: true,
      downloads: true,
    });
    expect(r.windows).toHaveLength(1);
    window = r.windows[0]!;
    expect(window.urls).toEqual([ENTRY]);
    expect(window.options.webPreferences).toMatchObject({
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
      webviewTag: false,
      webSecurity: true,
      preload: path.join(buildDir, 'preload', 'preload.cjs'),
    });
  });

  it("answers the window's calls and pushes it the events that follow", async () => {
    const info = await invoke<AppInfo>('app:info', [{}], window.id);
    expect(info).toEqual({
      ok: true,
      value: {
        name: 'Sightline',
        version: '0.0.0-standin',
        mode: 'electron',
        dataDir: userData,
        secrets: expect.objectContaining({ sealed: true }),
      },
    });
    const fleet = await invoke<FleetSnapshot>('fleet:snapshot', [{}], window.id);
    expect(fleet.ok).toBe(true);
    const key = fleet.ok ? fleet.value.sessions[0]?.key : undefined;
    expect(key).toBeDefined();
    expect(
      await invoke('goals:set', [{ sessionKey: key, objective: 'Ship the release' }], window.id),
    ).toMatchObject({
      ok: true,
      value: { objective: 'Ship the release', status: 'active' },
    });
    const r = await until(
      (x) => x.sends.some((s) => s.payload.events.some((e) => e.type === 'session:changed')),
      'a push',
    );
    expect(r.sends.every((s) => s.id === window.id && s.channel === PUSH_CHANNEL)).toBe(true);
  });

  it('refuses a call from any other web contents, and from another page in the window', async () => {
    const refused = {
      ok: false,
      error: { code: 'forbidden', message: 'sender is not the Sightline window' },
    };
    expect(await invoke('app:info', [{}], window.id + 1)).toEqual(refused);
    expect(await invoke('app:info', [{}], window.id, 'https://example.com/')).toEqual(refused);
  });

  it('quitting runs the shutdown steps: handlers removed, the gateway closed, the process ends', async () => {
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const r = await ask<Recorded>({ cmd: 'quit' });
    expect(r.quitEvents).toEqual(['before-quit', 'will-quit']);
    expect([...r.removedHandlers].sort()).toEqual([...CHANNEL_LIST].sort());
    expect(await exited).toBe(0);
    // Closed, not killed: SQLite folded its write-ahead log back into the file.
    expect(fs.existsSync(path.join(userData, `${DB_FILE}-wal`))).toBe(false);
    expect(output.join('')).not.toMatch(/shutdown step \w+ failed/);
  });
});
