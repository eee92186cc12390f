// Authentication is a path (issue 28.5): the fixture agent answers authRequired (-32000) until it
// is authenticated. Through the app's channels, the session shows the agent's authMethods; ACP
// `authenticate` with the agent's own method, or an API key for the profile (the person allows the
// changed command line; the key reaches the next agent in its environment only, never the page),
// and then Retry completes the turn. A terminal method shows the agent's own login command line.
import { afterEach, describe, expect, it } from 'vitest';
import { createApiHandlers } from '../../electron/gateway/api/handlers';
import type { ConsentQuestion } from '../../electron/gateway';
import type { AcpAuthView, Envelope } from '../../shared/ipc';
import { openTestGateway, tempDir, waitFor, type TestGateway } from '../helpers/gateway';
import { FIXTURE_AGENT } from '../helpers/registry-server';

let t: TestGateway | undefined;
afterEach(() => {
  t?.cleanup();
  t = undefined;
});

const AUTH_REQUIRED = 'agent returned a protocol error: Authentication required (code -32000)';

async function failedSession() {
  t = openTestGateway();
  const gw = t.gw;
  const asked: ConsentQuestion[] = [];
  gw.consent.plug(async (q) => {
    asked.push(q);
    return true;
  });
  gw.acp.profiles.save({
    id: 'needs-login',
    name: 'Needs Login',
    command: process.execPath,
    args: [FIXTURE_AGENT],
    env: { ACP_FIXTURE_AUTH: '1' },
  });
  const api = createApiHandlers(gw, {
    app: { name: 'Sightline', version: '0', mode: 'web', dataDir: t.dataDir },
  });
  const call = <T>(channel: string, args: unknown) =>
    api.dispatch(channel as never, args as never) as Promise<Envelope<T>>;
  const info = await gw.sessions.start({
    acpProfileId: 'needs-login',
    cwd: tempDir(),
    message: 'answer: hello',
  });
  await waitFor(() => gw.runs.list(info.key)[0]?.status === 'failed', 15_000, 'the failed first run');
  expect(gw.runs.list(info.key)[0]!.error).toBe(AUTH_REQUIRED);
  return { gw, key: info.key, call, asked };
}

describe('an agent that answers authRequired', () => {
  it('shows its methods: the agent`s own, an API key, and a terminal login with its command line', async () => {
    const { key, call } = await failedSession();
    const got = await call<AcpAuthView>('acp:auth:get', { sessionKey: key });
    expect(got).toEqual({
      ok: true,
      value: {
        sessionKey: key,
        profileId: 'needs-login',
        profileName: 'Needs Login',
        methods: [
          {
            id: 'fixture-agent-login',
            name: 'Log in through the agent',
            description: 'The agent logs itself in',
            kind: 'agent',
          },
          {
            id: 'fixture-api-key',
            name: 'Use an API key',
            description: 'Set FIXTURE_API_KEY',
            kind: 'apiKey',
            keyEnv: 'FIXTURE_API_KEY',
          },
          {
            id: 'fixture-terminal-login',
            name: 'Log in in a terminal',
            kind: 'terminal',
            command: [process.execPath, FIXTURE_AGENT, '--login'],
          },
        ],
        apiKeyEnv: 'FIXTURE_API_KEY',
        hasKey: false,
      },
    });
    expect(
      await call('acp:auth:authenticate', { sessionKey: key, methodId: 'fixture-terminal-login' }),
    ).toEqual({
      ok: false,
      error: {
        code: 'invalid_argument',
        message: 'Log in in a terminal runs in a terminal: run the command it shows there',
      },
    });
  });

  it('ACP authenticate with the agent`s method, then Retry completes the turn', async () => {
    const { gw, key, call } = await failedSession();
    expect(await call('acp:auth:authenticate', { sessionKey: key, methodId: 'fixture-agent-login' })).toEqual(
      {
        ok: true,
        value: { authenticated: true },
      },
    );
    expect(await call('runs:retry', { sessionKey: key })).toEqual({ ok: true, value: { retried: true } });
    await waitFor(() => gw.runs.list(key).at(-1)?.status === 'idle', 15_000, 'the retried run');
    expect(gw.transcripts.all(key).at(-1)!.text).toBe('You said: answer: hello');
  });

  it('an API key for the profile: allowed by the person, given to a fresh agent, never shown back; Retry works', async () => {
    const { gw, key, call, asked } = await failedSession();
    asked.length = 0;
    expect(
      await call('acp:auth:key', {
        sessionKey: key,
        name: 'FIXTURE_API_KEY',
        value: 'sk-fixture-secret-1234',
      }),
    ).toEqual({ ok: true, value: { saved: true } });
    // The person was asked about the changed command line (the page shows its values masked).
    expect(asked).toHaveLength(1);
    expect(asked[0]!.command.env?.FIXTURE_API_KEY).toBe('sk-fixture-secret-1234');
    const view = await call<AcpAuthView>('acp:auth:get', { sessionKey: key });
    expect(JSON.stringify(view)).not.toContain('sk-fixture-secret');
    const profiles = await call<{ env: Record<string, string> }[]>('acp:profiles:list', {});
    expect(JSON.stringify(profiles)).not.toContain('sk-fixture-secret');
    expect(await call('runs:retry', { sessionKey: key })).toEqual({ ok: true, value: { retried: true } });
    await waitFor(() => gw.runs.list(key).at(-1)?.status === 'idle', 15_000, 'the retried run');
    expect(gw.transcripts.all(key).at(-1)!.text).toBe('You said: answer: hello');
  });
});
