// The MCP credential channels of the IPC contract (Settings): types pinned, arguments parsed, and
// the handlers run against a real gateway — the secret comes back once, at issue, and never in a
// list; a new session made for an outside agent is never prompted by Sightline.
import net from 'node:net';
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import {
  type ArgsOf,
  type McpCredentialView,
  type McpIssuedView,
  type McpView,
  type ResultOf,
} from '../../shared/ipc';
import { parseArgs } from '../../shared/ipc/schemas';
import { createApiHandlers } from '../../electron/gateway/api/handlers';
import { openTestGateway, type TestGateway } from '../helpers/gateway';

const APP = { name: 'Sightline', version: 'test', mode: 'web' as const, dataDir: '' };
let t: TestGateway;
afterEach(() => t?.cleanup());

describe('mcp:* contract types', () => {
  it('pins arguments and results', () => {
    expectTypeOf<ArgsOf<'mcp:list'>>().toEqualTypeOf<Record<string, never>>();
    expectTypeOf<ArgsOf<'mcp:issue'>>().toEqualTypeOf<{
      sessionKey?: string | undefined;
      newSessionName?: string | undefined;
      label?: string | undefined;
      reach?: 'tree' | 'agent' | 'all' | undefined;
    }>();
    expectTypeOf<ArgsOf<'mcp:revoke'>>().toEqualTypeOf<{ id: string }>();
    expectTypeOf<ResultOf<'mcp:list'>>().toEqualTypeOf<McpView>();
    expectTypeOf<ResultOf<'mcp:issue'>>().toEqualTypeOf<McpIssuedView>();
    expectTypeOf<ResultOf<'mcp:revoke'>>().toEqualTypeOf<{ revoked: boolean }>();
    expectTypeOf<McpCredentialView>().not.toHaveProperty('secret');
    expectTypeOf<McpIssuedView['secret']>().toEqualTypeOf<string>();
  });

  it('parses arguments with clear messages', () => {
    const msg = (raw: unknown) => {
      const r = parseArgs('mcp:issue', raw);
      return r.ok ? 'ok' : r.message;
    };
    expect(msg({ sessionKey: 'agent:main:main' })).toBe('ok');
    expect(msg({ newSessionName: 'Claude Code in ~/src', label: 'laptop' })).toBe('ok');
    expect(msg({})).toBe('a credential needs exactly one of sessionKey and newSessionName');
    expect(msg({ sessionKey: 'agent:main:main', newSessionName: 'x' })).toBe(
      'a credential needs exactly one of sessionKey and newSessionName',
    );
    expect(msg({ newSessionName: '   ' })).toBe('newSessionName: newSessionName must not be empty');
    expect(msg({ sessionKey: 'k', label: 'x'.repeat(201) })).toBe(
      'label: label must be at most 200 characters',
    );
    expect(msg({ sessionKey: 'k', secret: 'mine' })).toMatch(/secret/);
    expect(parseArgs('mcp:revoke', { id: '' }).ok).toBe(false);
    expect(parseArgs('mcp:revoke', { id: 'x'.repeat(65) }).ok).toBe(false);
  });
});

describe('mcp:* handlers on a real gateway', () => {
  it('issues for an existing or a new session, shows the secret once, lists and revokes', async () => {
    t = openTestGateway();
    const api = createApiHandlers(t.gw, { app: APP });
    expect(await api.dispatch('mcp:list', {})).toEqual({ ok: true, value: { credentials: [] } });

    t.gw.sessions.create({ key: 'agent:main:adopted:claude:abc', label: 'Claude Code: fix tests' });
    const first = await api.dispatch('mcp:issue', {
      sessionKey: 'agent:main:adopted:claude:abc',
      label: 'laptop',
    });
    if (!first.ok) throw new Error(first.error.message);
    const issued = first.value as McpIssuedView;
    expect(issued).toMatchObject({
      sessionKey: 'agent:main:adopted:claude:abc',
      url: expect.stringMatching(/\/mcp$/),
    });
    expect(issued.secret).toMatch(/^slmcp_/);

    const fresh = await api.dispatch('mcp:issue', { newSessionName: 'Codex in ~/work' });
    if (!fresh.ok) throw new Error(fresh.error.message);
    const created = fresh.value as McpIssuedView;
    expect(created.sessionKey).toMatch(/^agent:main:external:codex-in-work-[0-9a-f]{6}$/);
    expect(t.gw.sessions.get(created.sessionKey)?.label).toBe('Codex in ~/work');

    const list = await api.dispatch('mcp:list', {});
    if (!list.ok) throw new Error(list.error.message);
    const view = list.value as McpView;
    const port = Number(new URL(issued.url).port);
    expect(view).toEqual({
      url: issued.url,
      port,
      credentials: [
        {
          id: issued.id,
          sessionKey: 'agent:main:adopted:claude:abc',
          sessionLabel: 'Claude Code: fix tests',
          label: 'laptop',
          kind: 'external',
          createdAt: expect.any(Number),
          issuedPort: port,
          reach: 'tree',
        },
        {
          id: created.id,
          sessionKey: created.sessionKey,
          sessionLabel: 'Codex in ~/work',
          kind: 'external',
          createdAt: expect.any(Number),
          issuedPort: port,
          reach: 'tree',
        },
      ],
    });
    // Secrets never travel back after issue.
    expect(JSON.stringify(view)).not.toContain(issued.secret);
    expect(JSON.stringify(view)).not.toContain(created.secret);

    // Sightline never prompts an outside agent's session.
    expect(await api.dispatch('human:send', { sessionKey: created.sessionKey, text: 'hello?' })).toEqual({
      ok: false,
      error: {
        code: 'invalid_argument',
        message: `${created.sessionKey} is run by an agent outside Sightline; Sightline cannot send it messages`,
      },
    });

    expect(await api.dispatch('mcp:revoke', { id: issued.id })).toEqual({
      ok: true,
      value: { revoked: true },
    });
    expect(await api.dispatch('mcp:revoke', { id: issued.id })).toEqual({
      ok: true,
      value: { revoked: false },
    });
    expect(await api.dispatch('mcp:issue', { sessionKey: 'agent:main:nope' })).toEqual({
      ok: false,
      error: { code: 'not_found', message: 'Unknown sessionKey: agent:main:nope' },
    });
  });

  it('after a restart on a taken port, the list shows the credential was issued for the old one', async () => {
    t = openTestGateway();
    t.gw.sessions.create({ key: 'agent:main:work' });
    const issued = await t.gw.mcp.issue('agent:main:work');
    const old = Number(new URL(issued.url).port);
    t.gw.close();
    const squatter = net.createServer();
    await new Promise<void>((r) => squatter.listen(old, '127.0.0.1', r));
    try {
      const gw = t.restart();
      await gw.mcp.endpoint();
      const r = await createApiHandlers(gw, { app: APP }).dispatch('mcp:list', {});
      const view = (r as { value: McpView }).value;
      expect(view.port).not.toBe(old);
      expect(view.credentials[0]).toMatchObject({ id: issued.id, issuedPort: old });
    } finally {
      squatter.close();
    }
  });
});
