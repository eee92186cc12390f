// Beyond the reference: notices cross processes when several gateways share one state database.
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../electron/gateway';
import { noticeContextKey, noticeText } from '../../shared/session-keys';
import { collectingLogger, tempDir, spawnEdge } from '../helpers/gateway';

const open: Gateway[] = [];
let dir = '';
afterEach(() => {
  for (const g of open.splice(0)) g.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function gateway(): Gateway {
  const g = createGateway({ dataDir: dir, autoStart: false, logger: collectingLogger() });
  open.push(g);
  return g;
}

describe('several gateways on one database', () => {
  it("delivers a notice for another gateway's commit, once", () => {
    dir = tempDir();
    const a = gateway();
    const b = gateway();
    const child = 'agent:main:subagent:w';
    const seed = spawnEdge(a, child);
    expect(b.state.pollShared()).toBe(0); // child_spawned is not notify-eligible
    a.state.record({
      sessionKey: child,
      kind: 'human_direct_message',
      actorType: 'human',
      summary: 'human message via desktop',
      watchers: ['agent:main:main'],
    });
    a.state.record({
      sessionKey: child,
      kind: 'human_direct_message',
      actorType: 'human',
      summary: 'human message via desktop',
      watchers: ['agent:main:main'],
    });
    expect(b.notices.peek('agent:main:main')).toEqual([]);
    expect(b.state.pollShared()).toBe(1);
    const expected = [{ text: noticeText(child, seed.sequence), contextKey: noticeContextKey(child) }];
    expect(b.notices.peek('agent:main:main')).toEqual(expected);
    expect(b.state.pollShared()).toBe(0); // nothing new committed elsewhere
    // Draining in B acknowledges the shared cursor (and reopens once: M had passed the frozen N).
    b.notices.drain('agent:main:main');
    expect(a.state.cursor('agent:main:main', child)).toEqual({
      lastSeen: seed.sequence + 1,
      notified: seed.sequence + 2,
      material: seed.sequence + 2,
    });
    expect(b.notices.peek('agent:main:main').map((n) => n.text)).toEqual([
      noticeText(child, seed.sequence + 1),
    ]);
  });
});
