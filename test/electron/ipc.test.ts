import { describe, expect, it } from 'vitest';
import { createApiHandlers } from '../../electron/gateway/api/handlers';
import type { GatewayApi } from '../../electron/gateway/api/gateway-api';
import fs from 'node:fs';
import path from 'node:path';
import { GatewayError, notFound, toIpcError } from '../../electron/gateway/errors';
import { registerIpcHandlers, type InvokeEventLike, type IpcMainLike } from '../../electron/main/ipc';
import { isTrustedSender } from '../../electron/main/security';
import { CHANNEL_LIST, type Channel, type Envelope, type IpcError } from '../../shared/ipc';

type Listener = (event: InvokeEventLike, ...args: unknown[]) => Promise<unknown>;

class FakeIpcMain implements IpcMainLike {
  readonly handlers = new Map<string, Listener>();
  handle(channel: string, listener: Listener): void {
    if (this.handlers.has(channel)) throw new Error(`second handler for ${channel}`);
    this.handlers.set(channel, listener);
  }
  removeHandler(channel: string): void {
    this.handlers.delete(channel);
  }
  invoke(channel: string, event: InvokeEventLike, ...args: unknown[]): Promise<unknown> {
    const h = this.handlers.get(channel);
    if (!h) throw new Error(`No handler registered for '${channel}'`);
    return h(event, ...args);
  }
}

const OUR_WINDOW = 3;
const fromApp: InvokeEventLike = {
  sender: { id: OUR_WINDOW },
  senderFrame: { url: 'app://sightline/index.html', parent: null },
};
const APP_INFO = { name: 'Sightline', version: '0.1.0', mode: 'electron' as const, dataDir: '/data' };
const SECRETS = { sealed: true, statement: 'sealed with the keyring' };

/** A sessions façade whose get fails as given; nothing else is called by these tests. */
function sessionsFake(get: () => never): GatewayApi['sessions'] {
  const unused = () => {
    throw new Error('not used');
  };
  return {
    get,
    list: () => [],
    start: unused,
    impact: unused,
    reset: unused,
    delete: unused,
    archive: unused,
  };
}

function setup(gateway: Partial<GatewayApi> = {}) {
  const ipcMain = new FakeIpcMain();
  const problems: Array<[Channel, IpcError]> = [];
  const api = createApiHandlers({ secrets: { info: SECRETS }, ...gateway } as GatewayApi, { app: APP_INFO });
  const unregister = registerIpcHandlers(ipcMain, {
    dispatch: api.dispatch,
    isTrustedSender: (event) => isTrustedSender(event, new Set([OUR_WINDOW])),
    onProblem: (channel, error) => problems.push([channel, error]),
  });
  return { ipcMain, problems, unregister };
}

describe('registerIpcHandlers', () => {
  it('registers exactly the contract channels and removes them again', () => {
    const { ipcMain, unregister } = setup();
    expect([...ipcMain.handlers.keys()].sort()).toEqual([...CHANNEL_LIST].sort());
    unregister();
    expect(ipcMain.handlers.size).toBe(0);
  });

  it('returns the value envelope for a valid call from our window', async () => {
    const { ipcMain } = setup();
    // app:info also says where secrets live (issue 14.4).
    const value = { ...APP_INFO, secrets: SECRETS };
    expect(await ipcMain.invoke('app:info', fromApp, {})).toEqual({ ok: true, value });
    expect(await ipcMain.invoke('app:info', fromApp)).toEqual({ ok: true, value });
  });

  it('answers invalid arguments with invalid_argument and the schema message', async () => {
    const { ipcMain } = setup();
    expect(await ipcMain.invoke('sessions:get', fromApp, { sessionKey: 42 })).toEqual({
      ok: false,
      error: { code: 'invalid_argument', message: 'sessionKey: sessionKey must be a string' },
    });
    const extra = (await ipcMain.invoke('app:info', fromApp, { evil: true })) as Envelope<unknown>;
    expect(extra.ok === false && extra.error.code).toBe('invalid_argument');
    expect(await ipcMain.invoke('app:info', fromApp, {}, {})).toEqual({
      ok: false,
      error: { code: 'invalid_argument', message: 'expected one argument object' },
    });
  });

  it('turns a thrown error into an internal envelope with its message and no stack', async () => {
    const boom = new Error('database disk image is malformed');
    const { ipcMain, problems } = setup({
      sessions: sessionsFake(() => {
        throw boom;
      }),
    });
    const result = await ipcMain.invoke('sessions:get', fromApp, { sessionKey: 'agent:a:main' });
    expect(result).toEqual({
      ok: false,
      error: { code: 'internal', message: 'database disk image is malformed' },
    });
    expect(JSON.stringify(result)).not.toContain('at ');
    expect(Object.keys((result as { error: object }).error)).toEqual(['code', 'message']);
    expect(problems).toEqual([
      ['sessions:get', { code: 'internal', message: 'database disk image is malformed' }],
    ]);
  });

  it('refuses senders that are not our window on the app origin, before parsing', async () => {
    const { ipcMain, problems } = setup();
    const forbidden = {
      ok: false,
      error: { code: 'forbidden', message: 'sender is not the Sightline window' },
    };
    const otherWindow = { ...fromApp, sender: { id: 99 } };
    const remote = {
      sender: { id: OUR_WINDOW },
      senderFrame: { url: 'https://evil.example/', parent: null },
    };
    const subframe = {
      sender: { id: OUR_WINDOW },
      senderFrame: { url: 'app://sightline/x.html', parent: {} },
    };
    const gone = { sender: { id: OUR_WINDOW }, senderFrame: null };
    for (const event of [otherWindow, remote, subframe, gone]) {
      expect(await ipcMain.invoke('app:info', event, { evil: true })).toEqual(forbidden);
    }
    expect(problems.map(([c, e]) => [c, e.code])).toEqual([
      ['app:info', 'forbidden'],
      ['app:info', 'forbidden'],
      ['app:info', 'forbidden'],
      ['app:info', 'forbidden'],
    ]);
  });

  it('still answers with an envelope when dispatch itself throws', async () => {
    const ipcMain = new FakeIpcMain();
    registerIpcHandlers(ipcMain, {
      dispatch: () => Promise.reject(new TypeError('cannot read properties of undefined')),
      isTrustedSender: () => true,
      channels: ['app:info'],
    });
    expect(await ipcMain.invoke('app:info', fromApp, {})).toEqual({
      ok: false,
      error: { code: 'internal', message: 'cannot read properties of undefined' },
    });
  });
});

describe('toIpcError', () => {
  // Changed on purpose (issue 12.4): one function for both transports, by type. A duck-typed
  // `code` on a plain Error no longer crosses; a GatewayError's does.
  it('keeps a GatewayError code, maps everything else to internal, clips the message', () => {
    expect(toIpcError(notFound('Unknown sessionKey: x'))).toEqual({
      code: 'not_found',
      message: 'Unknown sessionKey: x',
    });
    expect(toIpcError(new GatewayError('invalid_argument', 'bad'))).toEqual({
      code: 'invalid_argument',
      message: 'bad',
    });
    expect(toIpcError(Object.assign(new Error('sneaky'), { code: 'not_found' }))).toEqual({
      code: 'internal',
      message: 'sneaky',
    });
    expect(toIpcError(Object.assign(new Error('open failed'), { code: 'ENOENT' }))).toEqual({
      code: 'internal',
      message: 'open failed',
    });
    expect(toIpcError('plain string')).toEqual({ code: 'internal', message: 'plain string' });
    expect(toIpcError({ weird: true })).toEqual({ code: 'internal', message: 'internal error' });
    expect(toIpcError(null)).toEqual({ code: 'internal', message: 'internal error' });
    expect(toIpcError(new Error('x'.repeat(5000))).message).toHaveLength(1000);
  });

  it('gives the same envelope whether the error is thrown in a handler or reaches the IPC wrapper', async () => {
    const errors = [
      notFound('Unknown sessionKey: agent:a:x'),
      new Error('Unknown thread: t1'),
      new Error('x'.repeat(5000)),
      Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' }),
      'a string',
    ];
    for (const err of errors) {
      const viaHandler = await setup({
        sessions: sessionsFake(() => {
          throw err;
        }),
      }).ipcMain.invoke('sessions:get', fromApp, { sessionKey: 'agent:a:main' });
      const ipcMain = new FakeIpcMain();
      registerIpcHandlers(ipcMain, { dispatch: () => Promise.reject(err), isTrustedSender: () => true });
      const viaWrapper = await ipcMain.invoke('sessions:get', fromApp, { sessionKey: 'agent:a:main' });
      expect(viaWrapper).toEqual(viaHandler);
      expect(viaHandler).toEqual({ ok: false, error: toIpcError(err) });
    }
  });

  it('exists once in the product code', () => {
    const root = path.resolve(import.meta.dirname, '../..');
    const defs = fs
      .readdirSync(path.join(root, 'electron'), { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.ts'))
      .filter((f) =>
        /function\s+toIpcError\b|toIpcError\s*=/.test(
          fs.readFileSync(path.join(root, 'electron', f), 'utf8'),
        ),
      );
    expect(defs).toEqual(['gateway/errors.ts']);
  });
});
