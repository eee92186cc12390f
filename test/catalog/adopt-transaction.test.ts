// Adopting is one transaction (issue 13.4): session, imported transcript, `adopted`, the upstream
// link and the adopting watcher's cursor commit together, and the push events follow the commit.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../electron/gateway/index';
import type { GatewayEvent } from '../../electron/gateway/types';
import { collectingLogger } from '../helpers/logger';
import { tempDir } from '../helpers/temp';
import { CLAUDE_ID, writeClaude } from './fixtures';

const KEY = `agent:main:adopted:claude:${CLAUDE_ID}`;
let gw: Gateway | undefined;
let dir: string;
afterEach(() => {
  gw?.close();
  gw = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

function open(): Gateway {
  dir = tempDir('sightline-adopt-tx-');
  const roots = {
    claude: path.join(dir, 'claude'),
    codex: path.join(dir, 'codex'),
    opencode: path.join(dir, 'oc'),
    pi: path.join(dir, 'pi'),
  };
  writeClaude(roots.claude);
  gw = createGateway({
    dataDir: path.join(dir, 'data'),
    autoStart: false,
    catalogRoots: roots,
    logger: collectingLogger(),
  });
  return gw;
}

it('a failure at the last write leaves nothing of the adoption, and pushes nothing', () => {
  const g = open();
  const pushed: GatewayEvent[] = [];
  g.events.on((e) => pushed.push(e));
  // The watcher's cursor is the adoption's last write; a trigger stands in for a refusing disk.
  g.db.exec(
    `CREATE TEMP TRIGGER refuse BEFORE INSERT ON session_watch_cursors BEGIN SELECT RAISE(ABORT, 'disk says no'); END`,
  );
  expect(() => g.catalog.adopt({ provider: 'claude', threadId: CLAUDE_ID })).toThrow('disk says no');
  expect(g.sessions.get(KEY)).toBeUndefined();
  expect(g.state.version(KEY)).toBe(0);
  expect(g.transcripts.all(KEY)).toEqual([]);
  expect(g.db.prepare('SELECT count(*) AS n FROM catalog_upstream_links').get()).toEqual({ n: 0 });
  expect(pushed).toEqual([]);

  g.db.exec('DROP TRIGGER refuse');
  const info = g.catalog.adopt({ provider: 'claude', threadId: CLAUDE_ID });
  expect(info.key).toBe(KEY);
  expect(g.transcripts.all(KEY).map((m) => m.text)).toEqual([
    'The /invoices endpoint returns 500. Find out why.',
    'Looking.',
  ]);
  expect(g.state.changesSince(KEY, 0).events.map((e) => e.kind)).toEqual(['adopted']);
  expect(g.state.cursor('agent:main:main', KEY)).toBeDefined();
  // After the commit, in order: the session, its transcript, the event, the cursor.
  expect(pushed.map((e) => e.type)).toEqual([
    'session:changed',
    'transcript:appended',
    'transcript:appended',
    'state:event',
    'cursor:changed',
  ]);
});
