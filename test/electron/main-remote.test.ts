// The desktop app connected to a gateway a team shares (issue 30.2): the main bundle, built as
// `npm run build:electron` builds it, boots under plain Node with the recording stand-in of
// electron (as main-bundle.test.ts) and `--connect wss://… --pin sha256:…`. It opens no local
// database, answers the window's calls from the serve gateway as its own person, relays the
// gateway's pushes to the window, and ends with a reason when the owner revokes it; a wrong pin
// refuses to start. The client is the one browser mode uses (electron/serve/remote.ts).
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs script without types
import { buildMainBundle } from '../../scripts/build-electron.mjs';
import { CHANNEL_LIST, PUSH_CHANNEL } from '../../shared/ipc/channels';
import type { AppInfo, Envelope, PushBatch } from '../../shared/ipc';
import { DB_FILE } from '../../electron/gateway/db/open';
import { connectServe, type ServeClient } from '../../electron/serve/client';
import { remoteTarget } from '../../electron/serve/remote';
import { startServeGateway, type ServeGateway } from '../../electron/serve/server';
import { collectingLogger } from '../helpers/logger';
import { waitFor } from '../helpers/poll';
import { tempDir } from '../helpers/temp';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const STANDIN = path.join(ROOT, 'test/fixtures/electron-standin/register.cjs');
const ENTRY = 'app://sightline/index.html';

interface Recorded {
  windows: { id: number; urls: string[] }[];
  handlers: string[];
  removedHandlers: string[];
  sends: { id: number; channel: string; payload: PushBatch }[];
  errors: { title: string; content: string }[];
  quitEvents: string[];
}

/** One booted main process, driven over the fork IPC channel as the stand-in documents. */
function boot(bundle: string, appPath: string, userData: string, args: string[], env: NodeJS.ProcessEnv) {
  const child: ChildProcess = fork(bundle, args, {
    execArgv: ['--require', STANDIN],
    env: { ...process.env, ...env, STANDIN_USER_DATA: userData, STANDIN_APP_PATH: appPath },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const output: string[] = [];
  child.stdout!.on('data', (d) => output.push(String(d)));
  child.stderr!.on('data', (d) => output.push(String(d)));
  const pending = new Map<number, (v: unknown) => void>();
  let seq = 0;
  child.on('message', (m: { reply?: number; value?: unknown }) => {
    if (m.reply !== undefined) pending.get(m.reply)?.(m.value);
  });
  const ask = <T>(msg: Record<string, unknown>) =>
    new Promise<T>((resolve) => {
      const id = ++seq;
      pending.set(id, resolve as (v: unknown) => void);
      child.send({ ...msg, id });
    });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return {
    child,
    output,
    exited,
    state: () => ask<Recorded>({ cmd: 'state' }),
    invoke: <T>(channel: string, args: unknown, senderId: number) =>
      ask<Envelope<T>>({ cmd: 'invoke', channel, args: [args], senderId, frameUrl: ENTRY }),
  };
}

let buildDir: string;
let bundle: string;
let serve: ServeGateway;
let owner: ServeClient;
const cleanup: (() => void)[] = [];

beforeAll(async () => {
  fs.mkdirSync(path.join(ROOT, '.tmp'), { recursive: true });
  buildDir = fs.mkdtempSync(path.join(ROOT, '.tmp', 'main-remote-'));
  bundle = path.join(buildDir, 'main', 'main.cjs');
  await buildMainBundle(bundle);
  const dataDir = tempDir('sightline-serve-');
  cleanup.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  serve = await startServeGateway({
    dataDir,
    host: '127.0.0.6',
    port: 0,
    gateway: { autoStart: false, logger: collectingLogger() },
  });
  owner = connectServe({
    url: serve.url,
    pin: serve.fingerprint,
    invite: { code: serve.invite, name: 'Olivia' },
  });
  await owner.ready;
}, 90_000);

afterAll(async () => {
  owner?.close();
  await serve?.close();
  cleanup.forEach((c) => c());
  fs.rmSync(buildDir, { recursive: true, force: true });
});

describe('the desktop app on a shared gateway', () => {
  it('answers from the gateway as its person, gets the pushes, and ends when revoked', async () => {
    const invite = await owner.invoke('accounts:invite', {});
    const code = (invite as { ok: true; value: { code: string } }).value.code;
    const userData = tempDir('sightline-userdata-');
    cleanup.push(() => fs.rmSync(userData, { recursive: true, force: true }));
    const main = boot(bundle, buildDir, userData, ['--connect', serve.url, '--pin', serve.fingerprint], {
      SIGHTLINE_INVITE: code,
      SIGHTLINE_NAME: 'Dana',
    });
    cleanup.push(() => main.child.exitCode === null && main.child.kill('SIGKILL'));
    const r = await waitFor(
      async () => {
        if (main.child.exitCode !== null) throw new Error(`main exited:\n${main.output.join('')}`);
        const s = await main.state();
        if (s.errors.length) throw new Error(`start-up failed: ${JSON.stringify(s.errors)}`);
        return s.windows.length && s.handlers.length ? s : undefined;
      },
      20_000,
      'the window',
    );
    expect(r.handlers).toEqual([...CHANNEL_LIST].sort());
    expect(fs.existsSync(path.join(userData, DB_FILE))).toBe(false);
    expect(fs.statSync(path.join(userData, 'remote', 'credentials.json')).mode & 0o777).toBe(0o600);
    const win = r.windows[0]!.id;

    // The window's calls are the gateway's answers, as Dana.
    expect(await main.invoke('accounts:me', {}, win)).toMatchObject({
      ok: true,
      value: { id: 'user:dana', name: 'Dana', role: 'member' },
    });
    const info = await main.invoke<AppInfo>('app:info', {}, win);
    expect(info.ok && info.value.mode).toBe('web');
    expect(
      await main.invoke('goals:set', { sessionKey: 'agent:main:main', objective: 'from the app' }, win),
    ).toMatchObject({ ok: true, value: { objective: 'from the app' } });
    expect(serve.host.gateway.goals.get('agent:main:main')?.objective).toBe('from the app');

    // What another person does is pushed to the window (after Dana's own change came back).
    const changed = (x: Recorded['sends'][number]) =>
      x.id === win &&
      x.channel === PUSH_CHANNEL &&
      x.payload.events.some((e) => e.type === 'session:changed' && e.sessionKey === 'agent:main:main');
    const before = await waitFor(
      async () => (await main.state()).sends.filter(changed).length || undefined,
      10_000,
      "Dana's own change pushed",
    );
    await owner.invoke('goals:set', { sessionKey: 'agent:main:main', objective: 'from Olivia' });
    await waitFor(
      async () => (await main.state()).sends.filter(changed).length > before,
      10_000,
      "Olivia's change pushed to the window",
    );

    // Revoked: the app says why and quits (its handlers go, the client closes).
    expect(await owner.invoke('accounts:revoke', { accountId: 'user:dana' })).toEqual({
      ok: true,
      value: { revoked: true },
    });
    const ended = await waitFor(
      async () => {
        const s = await main.state();
        return s.quitEvents.length ? s : undefined;
      },
      10_000,
      'the app quits',
    );
    expect(ended.errors).toEqual([
      { title: 'Sightline: the gateway ended this connection', content: 'credential revoked' },
    ]);
    expect([...ended.removedHandlers].sort()).toEqual([...CHANNEL_LIST].sort());
    await waitFor(() => serve.connections() === 1, 5000, 'only the owner left');
  }, 60_000);

  it('refuses to start with a wrong pin, and says so', async () => {
    const userData = tempDir('sightline-userdata-');
    cleanup.push(() => fs.rmSync(userData, { recursive: true, force: true }));
    const wrong = `sha256:${'ab'.repeat(32)}`;
    const main = boot(bundle, buildDir, userData, ['--connect', serve.url, '--pin', wrong], {
      SIGHTLINE_INVITE: 'inv_whatever',
    });
    cleanup.push(() => main.child.exitCode === null && main.child.kill('SIGKILL'));
    expect(await main.exited).toBe(1);
    expect(main.output.join('')).toContain(
      `certificate pin mismatch: the gateway presented ${serve.fingerprint}, expected ${wrong}`,
    );
  }, 30_000);
});

describe('remoteTarget', () => {
  const pin = `sha256:${'0f'.repeat(32)}`;
  it('reads --connect and --pin, or SIGHTLINE_CONNECT and SIGHTLINE_PIN, and nothing else', () => {
    expect(remoteTarget(['node', 'main', '--connect', 'wss://gw:7443/ws', '--pin', pin], {})).toEqual({
      url: 'wss://gw:7443/ws',
      pin,
    });
    expect(remoteTarget([], { SIGHTLINE_CONNECT: 'wss://[::1]:7443/ws', SIGHTLINE_PIN: pin })).toEqual({
      url: 'wss://[::1]:7443/ws',
      pin,
    });
    expect(remoteTarget(['node', 'main'], {})).toBeUndefined();
  });
  it('never connects unpinned or in the clear', () => {
    expect(() => remoteTarget(['--connect', 'wss://gw:7443/ws'], {})).toThrow(
      '--connect needs --pin sha256:<hex> (the Fingerprint line of npm run serve)',
    );
    expect(() => remoteTarget(['--connect', 'wss://gw:7443/ws', '--pin', 'sha256:12'], {})).toThrow(
      '--connect needs --pin sha256:<hex>',
    );
    expect(() => remoteTarget(['--connect', 'ws://gw:7443/ws', '--pin', pin], {})).toThrow(
      `--connect needs the gateway's wss://HOST:PORT/ws address (got "ws://gw:7443/ws")`,
    );
  });
});
