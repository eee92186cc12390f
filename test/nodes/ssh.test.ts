// Reaching another machine over SSH (issue 19.2), through a real OpenSSH server on 127.0.0.1
// (test/nodes/sshd.ts): the system ssh client with BatchMode, a remote without the node file
// (copied over the same SSH, an older one replaced), a remote session adopted and counted; a host
// key mismatch, an unknown host key, a refused key and a missing node command each refused with a
// message naming the cause, nothing half-added; a destination that looks like an ssh option is
// never passed to ssh.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adoptedKeyFor } from '../../shared/session-keys';
import { bundleId } from '../../electron/gateway/nodes/launch';
import { openTestGateway, tempDir, type TestGateway } from '../helpers/gateway';
import { CLAUDE_ID, claudeUser, writeClaude } from '../catalog/fixtures';
import { makeRoots, nodeBundle } from './helpers';
import { startSshd, type Sshd } from './sshd';

let sshd: Sshd;
let bundle: string;
let dir: string;

beforeAll(async () => {
  dir = tempDir('sightline-ssh-');
  bundle = await nodeBundle();
  sshd = await startSshd(dir);
}, 60_000);
afterAll(() => {
  sshd?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

function gateway(config: string): TestGateway {
  return openTestGateway({
    catalogRoots: makeRoots(tempDir('sightline-local-')),
    nodes: { sshCommand: ['ssh', '-F', config], bundle, helloTimeoutMs: 15_000 },
  });
}

async function refused(
  config: string,
  input: Parameters<TestGateway['gw']['catalog']['nodes']['add']>[0],
  message: string | RegExp,
) {
  const t = gateway(config);
  try {
    await expect(t.gw.catalog.nodes.add(input)).rejects.toThrow(message);
    expect(t.gw.catalog.nodes.list()).toEqual([]);
    expect(t.gw.db.prepare('SELECT COUNT(*) AS n FROM catalog_nodes').get()).toEqual({ n: 0 });
  } finally {
    t.cleanup();
  }
}

describe('a node over SSH', () => {
  it('copies the node file to a remote that has none (replacing an older one), then serves its catalog', async () => {
    const nodeDir = path.join(sshd.home, '.sightline-node');
    fs.mkdirSync(nodeDir, { recursive: true });
    fs.writeFileSync(path.join(nodeDir, 'sightline-node-0123456789abcdef.mjs'), 'an older node');
    const file = writeClaude(path.join(sshd.home, '.claude', 'projects'));
    const t = gateway(sshd.config());
    try {
      const info = await t.gw.catalog.nodes.add({ ssh: 'sightline-test', name: 'remote' });
      expect(info).toMatchObject({ ssh: 'sightline-test', name: 'remote', state: 'online', sessions: 1 });
      const installed = path.join(nodeDir, `sightline-node-${bundleId(bundle)}.mjs`);
      expect(fs.readFileSync(installed).equals(fs.readFileSync(bundle))).toBe(true);
      expect(fs.statSync(installed).mode & 0o777).toBe(0o600);
      expect(fs.readdirSync(nodeDir).sort()).toEqual(['id', 'run', path.basename(installed)].sort());
      expect(fs.readFileSync(path.join(nodeDir, 'id'), 'utf8').trim()).toBe(info.id);

      const listed = await t.gw.catalog.listAsync();
      expect(listed).toEqual([
        expect.objectContaining({ threadId: CLAUDE_ID, hostId: info.id, hostName: 'remote', remote: true }),
      ]);
      const s = await t.gw.catalog.adopt({ provider: 'claude', threadId: CLAUDE_ID, hostId: info.id });
      expect(s.key).toBe(adoptedKeyFor('claude', CLAUDE_ID, info.id));
      fs.appendFileSync(file, claudeUser('typed on the remote machine'));
      await t.gw.catalog.tick();
      expect(t.gw.state.changesSince(s.key, 0).events.map((e) => e.kind)).toEqual([
        'adopted',
        'human_direct_message',
      ]);

      // A restart reconnects to the same node without copying again.
      const mtime = fs.statSync(installed).mtimeMs;
      t.restart();
      await t.gw.catalog.tick();
      expect(t.gw.catalog.nodes.list()[0]).toMatchObject({ id: info.id, state: 'online' });
      expect(fs.statSync(installed).mtimeMs).toBe(mtime);
    } finally {
      t.cleanup();
    }
  });

  it('refuses a host key that does not match known_hosts', async () => {
    const other = sshd.keygen('impostor');
    await refused(
      sshd.config({ knownHosts: sshd.knownHosts(other.pub) }),
      { ssh: 'sightline-test' },
      'sightline-test: the host key does not match the one in known_hosts',
    );
  });

  it('refuses an unknown host key, a refused login key, and a missing node command, each by name', async () => {
    await refused(
      sshd.config({ knownHosts: '' }),
      { ssh: 'sightline-test' },
      'the host key is not known yet',
    );
    await refused(
      sshd.config({ identity: sshd.keygen('stranger').key }),
      { ssh: 'sightline-test' },
      'SSH refused the login (no key was accepted)',
    );
    await refused(
      sshd.config(),
      { ssh: 'sightline-test', nodeCommand: ['/opt/nowhere/sightline-node', '--stdio'] },
      /sightline-test: the node command was not found/,
    );
  });

  it('never lets a destination become an ssh option', async () => {
    const marker = path.join(dir, 'pwned');
    for (const ssh of [`-oProxyCommand=touch ${marker}`, '-F/etc/passwd', 'host name', 'a;touch x', '']) {
      await refused(sshd.config(), { ssh }, 'Not an SSH destination');
    }
    expect(fs.existsSync(marker)).toBe(false);
  });
});
