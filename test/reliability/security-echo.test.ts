// A provider error that echoes the prompt must not carry message content into the log line
// "runtime: run failed" (the person still sees the error on the run).
import crypto from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openTestGateway } from '../helpers/gateway';
import { sendJson, startWireServer, type WireServer } from '../providers/wire-server';

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer();
});
afterAll(() => server.close());

it('a provider error echoing the prompt does not carry message content into the logs', async () => {
  const t = openTestGateway();
  try {
    const { gw } = t;
    gw.agents.save({
      id: 'echo',
      provider: 'openai',
      providerSettings: { baseUrl: `${server.origin}/v1`, model: 'x' },
      heartbeatSeconds: 0,
    });
    server.handle((req, res) => {
      const body = req.body as { messages: { role: string; content: string }[] };
      const last = body.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
      sendJson(res, 400, { error: { message: `Invalid request: ${last}`, type: 'invalid_request_error' } });
    });
    const marker = `zqecho${crypto.randomBytes(8).toString('hex')}`;
    await gw.human.send('agent:echo:main', `Summarise ${marker} please`);
    await gw.runtime.idle();
    expect(gw.runtime.runs('agent:echo:main')[0]).toMatchObject({ status: 'failed', outcome: 'error' });
    const lines = t.logger.lines.map((l) => JSON.stringify(l));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.filter((l) => l.includes(marker))).toEqual([]);
  } finally {
    await t.gw.runtime.idle();
    t.cleanup();
  }
});

it('a scripted worker failure does not carry its task text into the logs', async () => {
  const t = openTestGateway();
  try {
    const { gw } = t;
    gw.agents.save({ id: 'main', providerSettings: { stepMs: '5', steps: '2' } });
    const marker = `zqfail${crypto.randomBytes(8).toString('hex')}`;
    const r = await gw.tools.call('agent:main:main', 'sessions_spawn', {
      task: `[fail] fix ${marker}`,
      label: 'w',
    });
    expect(r.ok).toBe(true);
    await gw.runtime.idle();
    const lines = t.logger.lines.map((l) => JSON.stringify(l));
    expect(lines.some((l) => l.includes('runtime: run failed'))).toBe(true);
    expect(lines.filter((l) => l.includes(marker))).toEqual([]);
  } finally {
    await t.gw.runtime.idle();
    t.cleanup();
  }
});
