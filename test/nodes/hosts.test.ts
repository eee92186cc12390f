// Nodes are hosts (issue 19.3): a local session and a remote one with the same thread id stay
// apart (keys, links, events); renaming a node shows in the catalog; the same machine cannot be
// added twice; removing a node removes its links without upstream_missing and keeps its sessions.
// OpenCode is served where the node's Node has node:sqlite, and refused plainly where not.
import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { adoptedKeyFor } from '../../shared/session-keys';
import { adoptedKey } from '../../electron/gateway/catalog';
import { openTestGateway, tempDir, type TestGateway } from '../helpers/gateway';
import { CLAUDE_ID, claudeUser, writeClaude } from '../catalog/fixtures';
import { makeNode, makeRoots, type Roots, type TestNode } from './helpers';

let t: TestGateway;
let local: Roots;
let node: TestNode;

beforeEach(async () => {
  node = await makeNode();
  local = makeRoots(tempDir('sightline-local-'));
  t = openTestGateway({ catalogRoots: local });
});
afterEach(() => {
  t.cleanup();
  fs.rmSync(node.dir, { recursive: true, force: true });
});

const kinds = (key: string) => t.gw.state.changesSince(key, 0).events.map((e) => e.kind);

describe('nodes are hosts', () => {
  it('local and remote sessions with the same thread id stay apart', async () => {
    const localFile = writeClaude(local.claude);
    const remoteFile = writeClaude(node.roots.claude);
    const { id } = await t.gw.catalog.nodes.add({ command: node.command, name: 'devbox' });
    const entries = await t.gw.catalog.listAsync();
    expect(entries.map((e) => [e.threadId, e.hostId, e.remote])).toEqual(
      expect.arrayContaining([
        [CLAUDE_ID, id, true],
        [CLAUDE_ID, expect.not.stringMatching(id), false],
      ]),
    );
    expect(entries).toHaveLength(2);

    const mine = t.gw.catalog.adopt({ provider: 'claude', threadId: CLAUDE_ID });
    const theirs = await t.gw.catalog.adopt({ provider: 'claude', threadId: CLAUDE_ID, hostId: id });
    expect(mine.key).toBe(adoptedKey('claude', CLAUDE_ID));
    expect(theirs.key).toBe(adoptedKeyFor('claude', CLAUDE_ID, id));
    expect((await t.gw.catalog.listAsync()).every((e) => e.adopted)).toBe(true);

    fs.appendFileSync(remoteFile, claudeUser('on the devbox'));
    await t.gw.catalog.tick();
    expect(kinds(theirs.key)).toEqual(['adopted', 'human_direct_message']);
    expect(kinds(mine.key)).toEqual(['adopted']);
    fs.appendFileSync(localFile, claudeUser('here') + claudeUser('and here'));
    await t.gw.catalog.tick();
    expect(kinds(mine.key)).toEqual(['adopted', 'human_direct_message']);
    expect(kinds(theirs.key)).toEqual(['adopted', 'human_direct_message']);

    // Deleting the remote file never touches the local session.
    fs.rmSync(remoteFile);
    for (let i = 0; i < 3; i++) await t.gw.catalog.tick();
    expect(kinds(theirs.key)).toContain('upstream_missing');
    expect(kinds(mine.key)).toEqual(['adopted', 'human_direct_message']);
  });

  it('rename, a second add of the same machine, and remove (links go quietly, sessions stay)', async () => {
    writeClaude(node.roots.claude);
    const added = await t.gw.catalog.nodes.add({ command: node.command });
    expect(added.name).toBe(os.hostname());
    await expect(t.gw.catalog.nodes.add({ command: node.command })).rejects.toThrow(
      `That machine is already a node: ${added.name}`,
    );
    expect(t.gw.catalog.nodes.rename(added.id, 'build box').name).toBe('build box');
    expect((await t.gw.catalog.listAsync())[0]).toMatchObject({ hostName: 'build box', remote: true });

    const s = await t.gw.catalog.adopt({ provider: 'claude', threadId: CLAUDE_ID, hostId: added.id });
    t.gw.catalog.nodes.remove(added.id);
    expect(t.gw.catalog.nodes.list()).toEqual([]);
    expect(t.gw.sessions.get(s.key)?.key).toBe(s.key);
    expect(t.gw.db.prepare('SELECT COUNT(*) AS n FROM catalog_upstream_links').get()).toEqual({ n: 0 });
    for (let i = 0; i < 4; i++) await t.gw.catalog.tick();
    expect(kinds(s.key)).toEqual(['adopted']);
    expect(await t.gw.catalog.listAsync()).toEqual([]);
    await expect(
      t.gw.catalog.adopt({ provider: 'claude', threadId: CLAUDE_ID, hostId: added.id }),
    ).rejects.toThrow(`Unknown host: ${added.id}`);
  });

  it('serves OpenCode with node:sqlite, and says plainly that it cannot without it', async () => {
    const SID = 'ses_3f9a2c1d7ffe4Xq1Lm4Np8Rs2T';
    const db = new Database(path.join(node.roots.opencode, 'opencode.db'));
    db.exec(`
      CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, parent_id TEXT, directory TEXT NOT NULL,
        title TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, time_archived INTEGER);
      CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
      CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);`);
    const T0 = Date.now() - 600_000;
    db.prepare('INSERT INTO session VALUES (?, ?, NULL, ?, ?, ?, ?, NULL)').run(
      SID,
      'p',
      '/srv/app',
      'Fix it',
      T0,
      T0,
    );
    let n = 0;
    const prompt = (text: string) => {
      const at = T0 + ++n * 1000;
      const id = `msg_${String(at).padStart(14, '0')}`;
      db.prepare('INSERT INTO message VALUES (?, ?, ?, ?, ?)').run(
        id,
        SID,
        at,
        at,
        JSON.stringify({ role: 'user', time: { created: at } }),
      );
      db.prepare('INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)').run(
        `prt_${at}`,
        id,
        SID,
        at,
        at,
        JSON.stringify({ type: 'text', text }),
      );
    };
    prompt('first');
    const { id, providers } = await t.gw.catalog.nodes.add({ command: node.command });
    const opencode = providers?.find((p) => p.id === 'opencode');
    let hasSqlite = true;
    try {
      await import('node:sqlite' as string);
    } catch {
      hasSqlite = false;
    }
    if (hasSqlite) {
      expect(opencode).toMatchObject({ available: true });
      const s = await t.gw.catalog.adopt({ provider: 'opencode', threadId: SID, hostId: id });
      prompt('typed in OpenCode on the node');
      await t.gw.catalog.tick();
      expect(kinds(s.key)).toEqual(['adopted', 'human_direct_message']);
    } else {
      const plain = `this node cannot serve OpenCode: reading its database needs node:sqlite (Node 22.5 or newer), and this node runs Node ${process.versions.node}`;
      expect(opencode).toEqual({ id: 'opencode', label: 'OpenCode', available: false, reason: plain });
      expect((await t.gw.catalog.listAsync()).filter((e) => e.provider === 'opencode')).toEqual([]);
      await expect(t.gw.catalog.adopt({ provider: 'opencode', threadId: SID, hostId: id })).rejects.toThrow(
        plain,
      );
    }
    db.close();
  });
});

describe('from a clone', () => {
  it('`npm run node -- --stdio …` is a node (npm prints its banner on stdout; the gateway skips it)', async () => {
    writeClaude(node.roots.claude);
    const info = await t.gw.catalog.nodes.add({
      command: [
        'npm',
        'run',
        'node',
        '--',
        '--stdio',
        '--claude-root',
        node.roots.claude,
        '--data-dir',
        node.dataDir,
      ],
    });
    expect(info).toMatchObject({ state: 'online', sessions: 1 });
    expect(fs.readFileSync(path.join(node.dataDir, 'id'), 'utf8').trim()).toBe(info.id);
  });
});
