// Issue 14.4: secrets stay secret. A stored API key never follows a base URL to another host, plain
// http goes only to this machine, keys and ACP profile environment values are sealed with the
// keyring (Electron's safeStorage, injected here), and no view sent to the renderer carries more
// than the last 4 characters of a secret.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiHandlers } from '../../electron/gateway/api/handlers';
import type { SafeStorageLike } from '../../electron/gateway';
import { openTestGateway, waitFor, type TestGateway } from '../helpers/gateway';
import {
  OA_DONE,
  oaDelta,
  oaUsage,
  sendSse,
  startWireServer,
  type WireServer,
} from '../providers/wire-server';
import { MAIN } from '../helpers/spec';

const APP = { name: 'Sightline', version: 't', mode: 'web' as const, dataDir: '' };
const OLD_KEY = 'sk-old-0123456789abcdef';
const NEW_KEY = 'sk-new-fedcba9876543210';

let t: TestGateway | undefined;
let servers: WireServer[] = [];
afterEach(async () => {
  t?.cleanup();
  t = undefined;
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

async function modelServer(): Promise<WireServer> {
  const s = await startWireServer();
  s.handle((_req, res) =>
    sendSse(res, [oaDelta({ content: 'ok' }), oaDelta({}, 'stop'), oaUsage(1, 1), OA_DONE]),
  );
  servers.push(s);
  return s;
}

const bearers = (s: WireServer) => s.requests.map((r) => r.headers.authorization);

describe('an agent’s base URL', () => {
  let one: WireServer;
  let two: WireServer;
  beforeEach(async () => {
    one = await modelServer();
    two = await modelServer();
  });

  function setup() {
    t = openTestGateway();
    const gw = t.gw;
    const api = createApiHandlers(gw, { app: APP });
    gw.agents.save({
      id: 'main',
      provider: 'openai',
      providerSettings: { model: 'gpt-test', baseUrl: `${one.origin}/v1`, apiKey: OLD_KEY },
    });
    return { gw, api };
  }

  async function turn(gw: TestGateway['gw'], n: number) {
    await gw.human.send(MAIN, `hello ${n}`);
    await waitFor(
      () => gw.runtime.runs(MAIN).length === n && gw.runtime.status(MAIN)?.status === 'idle',
      5000,
      'turn',
    );
  }

  it('pointed at another host does not take the stored key along: the key is asked for again', async () => {
    const { gw, api } = setup();
    await turn(gw, 1);
    expect(bearers(one)).toEqual([`Bearer ${OLD_KEY}`]);

    expect(await api.dispatch('agents:save', { id: 'main', baseUrl: `${two.origin}/v1` })).toEqual({
      ok: false,
      error: {
        code: 'invalid_argument',
        message: `The API key would now go to ${two.origin}: enter the API key again for it (or remove the key)`,
      },
    });
    await turn(gw, 2);
    expect(bearers(two)).toEqual([]);
    expect(bearers(one)).toEqual([`Bearer ${OLD_KEY}`, `Bearer ${OLD_KEY}`]);

    // Another provider means another default host: the same rule.
    expect(
      await api.dispatch('agents:save', { id: 'main', provider: 'anthropic', baseUrl: '' }),
    ).toMatchObject({
      ok: false,
      error: {
        message:
          'The API key would now go to https://api.anthropic.com: enter the API key again for it (or remove the key)',
      },
    });

    expect(
      await api.dispatch('agents:save', { id: 'main', baseUrl: `${two.origin}/v1`, apiKey: NEW_KEY }),
    ).toMatchObject({
      ok: true,
      value: { baseUrl: `${two.origin}/v1`, hasApiKey: true, apiKeyHint: '3210' },
    });
    await turn(gw, 3);
    expect(bearers(two)).toEqual([`Bearer ${NEW_KEY}`]);

    // Same host, another path: the key stays.
    expect(await api.dispatch('agents:save', { id: 'main', baseUrl: `${two.origin}/v1/` })).toMatchObject({
      ok: true,
      value: { hasApiKey: true },
    });
    // Or the key goes, and the URL with it.
    expect(
      await api.dispatch('agents:save', { id: 'main', baseUrl: `${one.origin}/v1`, clearApiKey: true }),
    ).toMatchObject({ ok: true, value: { baseUrl: `${one.origin}/v1`, hasApiKey: false } });
  });

  it('uses plain http only for this machine', async () => {
    const { api } = setup();
    for (const baseUrl of ['http://example.com/v1', 'http://10.0.0.7:11434/v1', 'http://[::2]/v1'])
      expect(await api.dispatch('agents:save', { id: 'main', baseUrl, clearApiKey: true })).toEqual({
        ok: false,
        error: {
          code: 'invalid_argument',
          message: `base URL "${baseUrl}" uses plain http to another machine: use https (http is only for this machine)`,
        },
      });
    for (const baseUrl of [
      'http://localhost:11434/v1',
      'http://127.0.0.2:8080/v1',
      'http://[::1]:1234/v1',
      'https://models.example.com/v1',
    ])
      expect(await api.dispatch('agents:save', { id: 'main', baseUrl, clearApiKey: true })).toMatchObject({
        ok: true,
        value: { baseUrl },
      });
    expect(
      await api.dispatch('agents:save', { id: 'main', baseUrl: 'https://user:pw@example.com/v1' }),
    ).toMatchObject({
      ok: false,
      error: { message: 'base URL "https://user:pw@example.com/v1" must not carry a user name or password' },
    });
  });
});

/** Electron's safeStorage, as far as the gateway can tell: reversible, not the plain text. */
function fakeSafeStorage(backend = 'gnome_libsecret'): SafeStorageLike & { calls: number } {
  const box = {
    calls: 0,
    isEncryptionAvailable: () => true,
    encryptString(plain: string) {
      box.calls++;
      return Buffer.from(`enc(${Buffer.from(plain).reverse().toString('base64')})`);
    },
    decryptString(sealed: Buffer) {
      const inner = /^enc\((.*)\)$/.exec(sealed.toString())![1]!;
      return Buffer.from(inner, 'base64').reverse().toString();
    },
    getSelectedStorageBackend: () => backend,
  };
  return box;
}

const PROFILE_SECRET = 'ghp_profileSecret0123456789';

function saveSecrets(gw: TestGateway['gw']) {
  gw.agents.save({ id: 'main', provider: 'openai', providerSettings: { model: 'm', apiKey: OLD_KEY } });
  gw.acp.profiles.save({
    id: 'fixture',
    name: 'Fixture',
    command: process.execPath,
    args: [],
    env: { GITHUB_TOKEN: PROFILE_SECRET, LEVEL: 'debug' },
  });
}

const rawRows = (gw: TestGateway['gw']) =>
  JSON.stringify([
    gw.db.prepare(`SELECT provider_settings FROM agents`).all(),
    gw.db.prepare(`SELECT env FROM acp_profiles`).all(),
  ]);

describe('secrets at rest', () => {
  it('are sealed with the keyring in Electron; trusted code reads them, the file does not hold them', () => {
    const safeStorage = fakeSafeStorage();
    t = openTestGateway({ secrets: { safeStorage, platform: 'linux' } });
    saveSecrets(t.gw);
    expect(t.gw.secrets.info).toEqual({
      sealed: true,
      statement:
        'API keys and ACP profile environment values are encrypted with the system keyring (gnome_libsecret) before they are stored.',
    });
    const raw = rawRows(t.gw);
    expect(raw).not.toContain(OLD_KEY);
    expect(raw).not.toContain(PROFILE_SECRET);
    expect(raw).not.toContain('debug');
    expect(raw).toContain('sealed:v1:');
    expect(t.gw.agents.get('main')!.providerSettings.apiKey).toBe(OLD_KEY);
    expect(t.gw.acp.profiles.get('fixture')!.env).toEqual({ GITHUB_TOKEN: PROFILE_SECRET, LEVEL: 'debug' });

    // Without the keyring (the same data opened in browser mode) they cannot be read: empty, and said so.
    const browser = t.restart({ secrets: {} });
    expect(browser.secrets.info.sealed).toBe(false);
    expect(browser.agents.get('main')!.providerSettings.apiKey).toBe('');
    expect(t.logger.lines.map((l) => l.msg)).toContain(
      'agents: an API key cannot be unsealed; enter it again in Settings',
    );
  });

  it('stored before a keyring was there are sealed at the next start with one', () => {
    t = openTestGateway();
    saveSecrets(t.gw);
    expect(t.gw.secrets.info).toEqual({
      sealed: false,
      statement:
        "Browser mode has no access to the system keyring. API keys and ACP profile environment values are stored unencrypted in the data folder's database, readable only by your user account (folder 0700, file 0600).",
    });
    expect(rawRows(t.gw)).toContain(OLD_KEY);
    const gw = t.restart({ secrets: { safeStorage: fakeSafeStorage(), platform: 'darwin' } });
    expect(rawRows(gw)).not.toContain(OLD_KEY);
    expect(rawRows(gw)).not.toContain(PROFILE_SECRET);
    expect(gw.agents.get('main')!.providerSettings.apiKey).toBe(OLD_KEY);
  });

  it('say so plainly where the keyring is a hard-coded key (Linux without a secret service)', () => {
    const safeStorage = fakeSafeStorage('basic_text');
    t = openTestGateway({ secrets: { safeStorage, platform: 'linux' } });
    saveSecrets(t.gw);
    expect(t.gw.secrets.info.sealed).toBe(false);
    expect(t.gw.secrets.info.statement).toMatch(
      /^No secret service \(GNOME Keyring, KWallet\) was found\. API keys/,
    );
    expect(safeStorage.calls).toBe(0);
  });
});

describe('views sent to the renderer', () => {
  it('carry at most the last 4 characters of any secret', async () => {
    t = openTestGateway();
    const gw = t.gw;
    saveSecrets(gw);
    gw.consent.plug(gw.consent.pagePrompt);
    const api = createApiHandlers(gw, { app: APP });
    const pushed: unknown[] = [];
    gw.events.on((e) => pushed.push(e));
    const proposing = api.dispatch('acp:profiles:save', {
      id: 'fixture',
      name: 'Fixture',
      command: process.execPath,
      env: { OTHER: 'another-secret-value-9876' },
      keepEnv: ['GITHUB_TOKEN'],
    });
    await waitFor(() => gw.consent.pending().length === 1, 2000, 'question');
    const views = await Promise.all(
      (['fleet:snapshot', 'agents:list', 'acp:profiles:list', 'consent:list', 'app:info'] as const).map((c) =>
        api.dispatch(c, {}),
      ),
    );
    gw.consent.respond(gw.consent.pending()[0]!.id, true);
    views.push(await proposing);
    const text = JSON.stringify([views, pushed]);
    for (const secret of [OLD_KEY, PROFILE_SECRET, 'another-secret-value-9876']) {
      expect(text).not.toContain(secret.slice(0, -4));
      expect(text).toContain(secret.slice(-4));
    }
    expect(gw.acp.profiles.get('fixture')!.env).toEqual({
      GITHUB_TOKEN: PROFILE_SECRET,
      OTHER: 'another-secret-value-9876',
    });
  });
});
