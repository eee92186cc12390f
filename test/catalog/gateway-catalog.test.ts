// "Done when": through the gateway contract, one adopted session per provider, a human turn typed
// upstream in each → exactly one human_direct_message per session and one notice per session for
// the adopting person's main session; sources deleted → one upstream_missing each after three checks.
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../electron/gateway/index';
import { tmpDir } from './helpers';
import {
  CLAUDE_ID,
  CODEX_ID,
  PI_ID,
  claudeUser,
  codexUserMessage,
  piMessage,
  writeClaude,
  writeCodex,
  writePi,
} from './fixtures';
import { silentLogger } from '../helpers/logger';

const OC_ID = 'ses_3f9a2c1d7ffe4Xq1Lm4Np8Rs2T';
let gw: Gateway | undefined;
let dir: string;
afterEach(() => {
  gw?.close();
  gw = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

function opencodeDb(root: string): Database.Database {
  fs.mkdirSync(root, { recursive: true });
  const db = new Database(path.join(root, 'opencode.db'));
  db.pragma('journal_mode = WAL');
  db.exec(`CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT, parent_id TEXT, directory TEXT, title TEXT,
              time_created INTEGER, time_updated INTEGER, time_archived INTEGER);
           CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER, time_updated INTEGER, data TEXT);
           CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, session_id TEXT, time_created INTEGER, time_updated INTEGER, data TEXT);`);
  db.prepare('INSERT INTO session VALUES (?, ?, NULL, ?, ?, ?, ?, NULL)').run(
    OC_ID,
    'p',
    '/srv/app',
    'OpenCode work',
    1000,
    1000,
  );
  return db;
}

function ocUser(db: Database.Database, id: string, at: number, text: string): void {
  db.prepare('INSERT INTO message VALUES (?, ?, ?, ?, ?)').run(
    id,
    OC_ID,
    at,
    at,
    JSON.stringify({ role: 'user', time: { created: at } }),
  );
  db.prepare('INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)').run(
    `prt_${id}`,
    id,
    OC_ID,
    at,
    at,
    JSON.stringify({ type: 'text', text }),
  );
}

it('adopt one session per provider, detect upstream human turns and deleted sources through the gateway', async () => {
  dir = tmpDir('sightline-gw-catalog-');
  const roots = {
    claude: path.join(dir, 'claude', 'projects'),
    codex: path.join(dir, 'codex', 'sessions'),
    opencode: path.join(dir, 'opencode'),
    pi: path.join(dir, 'pi', 'sessions'),
  };
  const claude = writeClaude(roots.claude);
  const codex = writeCodex(roots.codex);
  const pi = writePi(roots.pi);
  const oc = opencodeDb(roots.opencode);
  ocUser(oc, 'msg_0001', Date.now() - 60_000, 'first prompt');

  gw = createGateway({
    dataDir: path.join(dir, 'data'),
    autoStart: false,
    catalogRoots: roots,
    logger: silentLogger,
  });
  const listed = gw.catalog.list();
  expect(listed.map((e) => `${e.provider}:${e.threadId}`).sort()).toEqual(
    [`claude:${CLAUDE_ID}`, `codex:${CODEX_ID}`, `opencode:${OC_ID}`, `pi:${PI_ID}`].sort(),
  );
  expect(await gw.catalog.listAsync()).toEqual(listed);

  const keys = (['claude', 'codex', 'opencode', 'pi'] as const).map((provider) => {
    const threadId = { claude: CLAUDE_ID, codex: CODEX_ID, opencode: OC_ID, pi: PI_ID }[provider];
    const info = gw!.catalog.adopt({ provider, threadId });
    expect(info.key).toBe(`agent:main:adopted:${provider}:${threadId}`);
    const adopted = gw!.state.changesSince(info.key, 0).events.filter((e) => e.kind === 'adopted');
    expect(adopted).toEqual([
      expect.objectContaining({ actorType: 'human', summary: `adopted from ${provider}` }),
    ]);
    return info.key;
  });

  fs.appendFileSync(claude, claudeUser('typed in claude'));
  fs.appendFileSync(codex, codexUserMessage('typed in codex'));
  fs.appendFileSync(pi, piMessage({ role: 'user', content: 'typed in pi' }, 'e1e1e1e1'));
  ocUser(oc, 'msg_0002', Date.now() - 30_000, 'typed in opencode');

  await gw.catalog.tick();
  for (const [i, key] of keys.entries()) {
    const provider = ['claude', 'codex', 'opencode', 'pi'][i];
    const human = gw.state.changesSince(key, 0).events.filter((e) => e.kind === 'human_direct_message');
    expect(human).toEqual([
      expect.objectContaining({
        actorType: 'human',
        summary: `human message via ${provider}`,
      }),
    ]);
    expect(human[0]!.payload).toBeUndefined();
  }
  const notices = gw.notices.peek('agent:main:main');
  expect(notices).toHaveLength(4);
  for (const key of keys) expect(notices.filter((n) => n.text.includes(`"${key}"`))).toHaveLength(1);

  // A check with nothing new records nothing more.
  await gw.catalog.tick();
  for (const key of keys)
    expect(
      gw.state.changesSince(key, 0).events.filter((e) => e.kind === 'human_direct_message'),
    ).toHaveLength(1);

  fs.rmSync(claude);
  fs.rmSync(codex);
  fs.rmSync(pi);
  oc.prepare('DELETE FROM session WHERE id = ?').run(OC_ID);
  oc.close();
  const missing = () =>
    keys.map((k) => gw!.state.changesSince(k, 0).events.filter((e) => e.kind === 'upstream_missing').length);
  await gw.catalog.tick();
  await gw.catalog.tick();
  expect(missing()).toEqual([0, 0, 0, 0]);
  await gw.catalog.tick();
  expect(missing()).toEqual([1, 1, 1, 1]);
  await gw.catalog.tick();
  expect(missing()).toEqual([1, 1, 1, 1]);
  for (const [i, key] of keys.entries()) {
    const provider = ['claude', 'codex', 'opencode', 'pi'][i];
    expect(gw.state.changesSince(key, 0).events.find((e) => e.kind === 'upstream_missing')).toMatchObject({
      actorType: 'system',
      summary: `upstream missing via ${provider}`,
      payload: { channel: provider },
    });
  }
});
