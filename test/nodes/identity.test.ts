// Nodes cannot impersonate (issue 29.6): a node never takes this machine's own id (its local
// adopted sessions stay local), and a node's id is bound to its SSH host key at pairing — a later
// connection whose known_hosts key differs is refused until the person pairs it again. Real node
// processes, a real sshd.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../electron/gateway/db/open';
import { fingerprints } from '../../electron/gateway/nodes/host-key';
import { createNodes, type NodesDeps } from '../../electron/gateway/nodes/service';
import { realScheduler } from '../../electron/gateway/scheduler';
import { collectingLogger, tempDir } from '../helpers/gateway';
import { makeNode, makeRoots, nodeBundle } from './helpers';
import { startSshd, type Sshd } from './sshd';
import { createNodeRepository } from '../../electron/gateway/nodes/repository';

const THIS_MACHINE = 'this-machine-0001';
let sshd: Sshd;
let dir: string;
const closing: (() => void)[] = [];

beforeAll(async () => {
  dir = tempDir('sightline-identity-');
  sshd = await startSshd(dir);
}, 60_000);
afterAll(() => {
  sshd?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  for (const c of closing.splice(0).reverse()) c();
});

function service(db: Db, launch: NodesDeps['launch']) {
  const nodes = createNodes({
    repo: createNodeRepository(db),
    now: Date.now,
    scheduler: realScheduler,
    logger: collectingLogger(),
    emit: () => {},
    launch,
    helloTimeoutMs: 15_000,
    removeLinks: () => {},
    localId: THIS_MACHINE,
  });
  closing.push(() => nodes.close());
  return nodes;
}

function database(): Db {
  const dataDir = tempDir('sightline-identity-db-');
  const db = openDatabase(dataDir);
  closing.push(() => {
    db.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  return db;
}

describe('a node’s identity', () => {
  it('is never this machine’s own id: a node claiming it is refused, and this machine’s sessions stay local', async () => {
    const node = await makeNode();
    closing.push(() => fs.rmSync(node.dir, { recursive: true, force: true }));
    fs.mkdirSync(node.dataDir, { recursive: true });
    fs.writeFileSync(path.join(node.dataDir, 'id'), `${THIS_MACHINE}\n`);
    const db = database();
    const nodes = service(db, { sshCommand: ['ssh'] });
    await expect(nodes.add({ command: node.command })).rejects.toThrow(
      `refused: the node claims the id "${THIS_MACHINE}", which is this machine's own or not a node id`,
    );
    expect(nodes.list()).toEqual([]);
    // Even a row written by an older version cannot make this machine's sessions a node's.
    db.prepare(
      `INSERT INTO catalog_nodes (id, name, ssh, command_json, node_command_json, allow_continue, sessions_seen, last_check_at, created_at, updated_at)
       VALUES (?, 'old', NULL, ?, NULL, 0, NULL, NULL, 1, 1)`,
    ).run(THIS_MACHINE, JSON.stringify(node.command));
    const again = service(db, { sshCommand: ['ssh'] });
    expect(again.isNode(THIS_MACHINE)).toBe(false);
    await expect(again.connection(THIS_MACHINE)).rejects.toThrow(/this machine's own/);
  });

  it('is bound to the SSH host key at pairing; another key later is refused by name', async () => {
    const bundle = await nodeBundle();
    makeRoots(sshd.home);
    const db = database();
    const paired = service(db, { sshCommand: ['ssh', '-F', sshd.config()], bundle });
    const info = await paired.add({ ssh: 'sightline-test' });
    const row = db.prepare('SELECT host_key FROM catalog_nodes WHERE id = ?').get(info.id) as {
      host_key: string;
    };
    expect(row.host_key).toBe(fingerprints(sshd.knownHosts()).join('\n'));
    expect(row.host_key).toMatch(/^ssh-ed25519 SHA256:[A-Za-z0-9+/]{43}$/);
    paired.close();

    // The same destination, known_hosts now holding another key for it: refused before any
    // connection, naming the cause.
    const other = sshd.keygen('impostor-identity');
    const changed = service(db, {
      sshCommand: ['ssh', '-F', sshd.config({ knownHosts: sshd.knownHosts(other.pub) })],
      bundle,
    });
    await expect(changed.connection(info.id)).rejects.toThrow(
      'the SSH host key of sightline-test is not the one this node was paired with: remove the node and add it again if the machine really changed',
    );
    // With the key it was paired with, it connects.
    const same = service(db, { sshCommand: ['ssh', '-F', sshd.config()], bundle });
    await expect(same.connection(info.id)).resolves.toBeDefined();
  }, 60_000);
});
