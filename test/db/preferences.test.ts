// UI preferences (theme, notifications) survive a restart in the gateway's database; a damaged
// stored value falls back to the default instead of failing the page.
import { afterEach, describe, expect, it } from 'vitest';
import { createApiHandlers } from '../../electron/gateway/api/handlers';
import { DEFAULT_PREFERENCES, type Envelope, type Preferences } from '../../shared/ipc';
import { openHarness, type Harness } from '../state/helpers';

const harnesses: Harness[] = [];
afterEach(() => {
  for (const h of harnesses.splice(0)) h.dispose();
});

const APP = { name: 'Sightline', version: 't', mode: 'web' as const, dataDir: '/tmp' };
const value = (env: Envelope<unknown>) => {
  if (!env.ok) throw new Error(env.error.message);
  return env.value as Preferences;
};

describe('preferences', () => {
  it('start at the defaults, merge partial changes and survive a restart', async () => {
    const h = openHarness();
    harnesses.push(h);
    let api = createApiHandlers(h.gw, { app: APP });
    expect(value(await api.dispatch('prefs:get', {}))).toEqual(DEFAULT_PREFERENCES);
    await api.dispatch('prefs:set', { theme: 'dark' });
    const set = value(
      await api.dispatch('prefs:set', { notifications: { finished: true, longRunSeconds: 60 } }),
    );
    expect(set).toEqual({
      theme: 'dark',
      notifications: { ...DEFAULT_PREFERENCES.notifications, finished: true, longRunSeconds: 60 },
      inbox: { doneUnseen: true },
      nodes: { agentGraceSeconds: 120 },
    });
    const off = value(await api.dispatch('prefs:set', { inbox: { doneUnseen: false } }));
    expect(off.inbox).toEqual({ doneUnseen: false });
    expect(off.notifications).toEqual(set.notifications);
    api = createApiHandlers(h.restart(), { app: APP });
    expect(value(await api.dispatch('prefs:get', {}))).toEqual(off);
  });

  it("the grace of agents on nodes: the person's number of seconds, bounded, kept across a restart", async () => {
    const h = openHarness();
    harnesses.push(h);
    let api = createApiHandlers(h.gw, { app: APP });
    const refused = async (agentGraceSeconds: unknown) => {
      const r = await api.dispatch('prefs:set', { nodes: { agentGraceSeconds } });
      return r.ok ? 'accepted' : r.error.message;
    };
    expect(await refused(-1)).toBe(
      'nodes.agentGraceSeconds: agentGraceSeconds must be between 0 and 86400 seconds',
    );
    expect(await refused(86_401)).toBe(
      'nodes.agentGraceSeconds: agentGraceSeconds must be between 0 and 86400 seconds',
    );
    expect(await refused(1.5)).toBe('nodes.agentGraceSeconds: agentGraceSeconds must be an integer');
    expect(await refused('60')).toBe('nodes.agentGraceSeconds: agentGraceSeconds must be a number');
    expect(value(await api.dispatch('prefs:get', {})).nodes).toEqual({ agentGraceSeconds: 120 });
    expect(value(await api.dispatch('prefs:set', { nodes: { agentGraceSeconds: 0 } })).nodes).toEqual({
      agentGraceSeconds: 0,
    });
    api = createApiHandlers(h.restart(), { app: APP });
    expect(value(await api.dispatch('prefs:get', {})).nodes).toEqual({ agentGraceSeconds: 0 });
  });

  it('a damaged stored value falls back to its default, the others stay', async () => {
    const h = openHarness();
    harnesses.push(h);
    const api = createApiHandlers(h.gw, { app: APP });
    await api.dispatch('prefs:set', { theme: 'light', notifications: { failed: false } });
    h.gw.db
      .prepare(`UPDATE ui_preferences SET value = '{"waiting": "yes"' WHERE name = 'notifications'`)
      .run();
    h.gw.db.prepare(`INSERT INTO ui_preferences VALUES ('unknown', '1', 0)`).run();
    expect(value(await api.dispatch('prefs:get', {}))).toEqual({ ...DEFAULT_PREFERENCES, theme: 'light' });
    h.gw.db.prepare(`UPDATE ui_preferences SET value = '"purple"' WHERE name = 'theme'`).run();
    expect(value(await api.dispatch('prefs:get', {})).theme).toBe('system');
  });
});
