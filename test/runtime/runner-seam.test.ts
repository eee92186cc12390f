// The runner seam: a third kind of runner, handed to createGateway, runs sessions a person starts
// with the same lifecycle as native and ACP sessions: the parent's one notice, runs, statuses,
// messages routed to it (never by the shape of the key), and its forget on delete.
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../electron/gateway';
import { echoRunner } from '../fixtures/echo-runner';
import { collectingLogger } from '../helpers/logger';
import { tempDir } from '../helpers/temp';
import { MAIN, noticeText } from '../helpers/spec';

let gw: Gateway;
let dir: string;
afterEach(() => {
  gw?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('a third runner', () => {
  it('runs the sessions started with it through the one lifecycle', async () => {
    dir = tempDir();
    gw = createGateway(
      { dataDir: dir, autoStart: false, logger: collectingLogger() },
      { runners: [echoRunner] },
    );
    const info = await gw.sessions.start({ runtime: 'echo', message: 'hello', parentKey: MAIN });
    expect(info.key).toMatch(/^agent:main:echo:[0-9a-f]{8}$/);
    expect(info.label).toBe('Echo: hello');

    // The person's first message is one notice for the parent; the run ended idle.
    const events = gw.state.changesSince(info.key, 0).events;
    expect(events.map((e) => e.kind)).toEqual(['child_spawned', 'human_direct_message', 'run_completed']);
    expect(gw.notices.peek(MAIN).map((n) => n.text)).toEqual([noticeText(info.key, events[0]!.sequence)]);
    expect(gw.runs.list(info.key).map((r) => r.status)).toEqual(['idle']);
    expect(gw.status.get(info.key).status).toBe('done_unseen');

    // A person's message goes to its runner, recorded with the runner's channel.
    await gw.human.send(info.key, 'again');
    expect(gw.transcripts.all(info.key).map((m) => `${m.role}: ${m.text}`)).toEqual([
      'user: hello',
      'assistant: echo: hello',
      'user: again',
      'assistant: echo: again',
    ]);
    const human = gw.state.changesSince(info.key, 0).events.filter((e) => e.kind === 'human_direct_message');
    expect(human.map((e) => e.summary)).toEqual(['human message via desktop', 'human message via echo']);
    expect(gw.runtime.cancel(info.key)).toBe(false);
    expect(gw.runtime.retryable(info.key)).toBe(false);

    gw.sessions.delete(info.key);
    await expect(gw.human.send(info.key, 'gone')).rejects.toThrow(`Unknown sessionKey: ${info.key}`);
  });
});
