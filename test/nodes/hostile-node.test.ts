// Whatever a node sends is hostile until parsed (issue 19.1-19.2): a 10 MiB frame, a frame of
// garbage, a wrong protocol version, endless other output, a command that does not exist. Each
// is refused with a clear error, nothing is half-added, and the gateway keeps serving. A node
// that turns hostile after it was added only goes offline: its links are not "missing". A link
// whose source points outside the node's roots is refused by the node, inconclusively.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { adoptedKeyFor } from '../../shared/session-keys';
import { openTestGateway, tempDir, type TestGateway } from '../helpers/gateway';
import { CLAUDE_ID, claudeUser, writeClaude } from '../catalog/fixtures';
import { makeNode, makeRoots, type TestNode } from './helpers';

let t: TestGateway;
let dir: string;
const made: TestNode[] = [];

beforeEach(() => {
  dir = tempDir('sightline-hostile-');
  t = openTestGateway({ catalogRoots: makeRoots(path.join(dir, 'local')), nodes: { helloTimeoutMs: 4000 } });
});
afterEach(() => {
  t.cleanup();
  fs.rmSync(dir, { recursive: true, force: true });
  for (const n of made.splice(0)) fs.rmSync(n.dir, { recursive: true, force: true });
});

const HELLO = `{ type: 'hello', protocol: 2, nodeId: 'nfake0000000000001', name: 'fake', nodeVersion: '20', platform: 'linux', providers: [], allowContinue: false }`;

/** A fake node: a script that writes `body` (JavaScript with `frame(o)` and `out(buf)`). */
function fake(body: string): string[] {
  const file = path.join(dir, `fake-${Math.random().toString(36).slice(2)}.mjs`);
  fs.writeFileSync(
    file,
    `const out = (b) => process.stdout.write(b);
const frame = (o) => { const b = Buffer.from(typeof o === 'string' ? o : JSON.stringify(o)); const h = Buffer.alloc(4); h.writeUInt32BE(b.length); return Buffer.concat([h, b]); };
const MAGIC = 'SIGHTLINE-NODE\\n';
${body}
process.stdin.resume();
`,
  );
  return [process.execPath, file];
}

async function gatewayStillServes(): Promise<void> {
  expect(t.gw.catalog.nodes.list()).toEqual([]);
  expect(t.gw.db.prepare('SELECT COUNT(*) AS n FROM catalog_nodes').get()).toEqual({ n: 0 });
  expect(await t.gw.catalog.listAsync()).toEqual([]);
  expect(t.gw.sessions.create({ key: 'agent:main:after' }).key).toBe('agent:main:after');
}

describe('a hostile node', () => {
  it.each([
    [
      'a 10 MiB frame',
      `out(MAGIC); const h = Buffer.alloc(4); h.writeUInt32BE(10 * 1024 * 1024); out(h);`,
      'a frame of 10485760 bytes is over the 4 MiB limit',
    ],
    ['a frame of garbage', `out(MAGIC); out(frame('{not json'));`, 'is not JSON'],
    [
      'an older protocol version',
      `out(MAGIC); out(frame({ ...${HELLO}, protocol: 1 }));`,
      'the node speaks protocol 1; this Sightline speaks protocol 2 (the node is older than this Sightline: update the node command to this version, or add the machine by SSH destination alone so Sightline installs its own node file)',
    ],
    [
      'a newer protocol version',
      `out(MAGIC); out(frame({ ...${HELLO}, protocol: 3 }));`,
      'the node speaks protocol 3; this Sightline speaks protocol 2 (the node is newer than this Sightline: update Sightline)',
    ],
    ['no node at all (endless other output)', `out('x'.repeat(200 * 1024));`, 'no node answered'],
    [
      'a hello without a node id',
      `out(MAGIC); out(frame({ ...${HELLO}, nodeId: '--x' }));`,
      'no valid node id',
    ],
  ])('sending %s is refused with a clear error; nothing is added', async (_what, body, message) => {
    await expect(t.gw.catalog.nodes.add({ command: fake(body) })).rejects.toThrow(message);
    await gatewayStillServes();
  });

  it('a command that does not exist, or exits at once, is refused with its reason', async () => {
    await expect(t.gw.catalog.nodes.add({ command: [path.join(dir, 'no-such-node')] })).rejects.toThrow(
      /cannot start: spawn .*no-such-node ENOENT/,
    );
    await expect(
      t.gw.catalog.nodes.add({ command: fake(`console.error('node: bad luck'); process.exit(3);`) }),
    ).rejects.toThrow('exited with code 3: node: bad luck');
    await expect(
      t.gw.catalog.nodes.add({ command: ['/bin/sh', '-c', 'exit 0'], ssh: 'x' } as never),
    ).rejects.toThrow('exactly one of ssh');
    await gatewayStillServes();
  });

  it('a node that turns hostile after it was added goes offline; its links are not missing', async () => {
    const script = `out(MAGIC); out(frame(${HELLO}));
let buf = Buffer.alloc(0);
process.stdin.on('data', (d) => {
  buf = Buffer.concat([buf, d]);
  while (buf.length >= 4 && buf.length >= 4 + buf.readUInt32BE(0)) {
    const m = JSON.parse(buf.subarray(4, 4 + buf.readUInt32BE(0)).toString()); buf = buf.subarray(4 + buf.readUInt32BE(0));
    if (m.op === 'list') out(frame({ type: 'res', id: m.id, ok: true, result: { entries: [] } }));
    if (m.op === 'check') { const h = Buffer.alloc(4); h.writeUInt32BE(10 * 1024 * 1024); out(h); }
  }
});`;
    const info = await t.gw.catalog.nodes.add({ command: fake(script) });
    expect(info).toMatchObject({ id: 'nfake0000000000001', state: 'online', sessions: 0 });
    // A link on that host (as if adopted before the node turned hostile).
    const key = adoptedKeyFor('claude', CLAUDE_ID, info.id);
    t.gw.sessions.create({ key });
    t.gw.state.registerWatch('agent:main:main', key);
    t.gw.db
      .prepare(
        `INSERT INTO catalog_upstream_links (session_key, provider, thread_id, host_id, source_ref, source_hash, generation,
           marker_offset, created_at, updated_at) VALUES (?, 'claude', ?, ?, '{"kind":"file","path":"/x.jsonl"}', 'h', 1, 0, 0, 0)`,
      )
      .run(key, CLAUDE_ID, info.id);
    for (let i = 0; i < 4; i++) await t.gw.catalog.tick();
    expect(t.gw.state.changesSince(key, 0).events.map((e) => e.kind)).toEqual([]);
    const [after] = t.gw.catalog.nodes.list();
    expect(after?.state).toBe('offline');
    expect(after?.lastError).toContain('over the 4 MiB limit');
    expect(t.logger.lines.some((l) => l.msg === 'catalog: node check inconclusive')).toBe(true);
  });

  it('a link pointing outside the node roots is refused by the node: inconclusive, never missing', async () => {
    const n = await makeNode();
    made.push(n);
    const file = writeClaude(n.roots.claude);
    const { id } = await t.gw.catalog.nodes.add({ command: n.command });
    await t.gw.catalog.adopt({ provider: 'claude', threadId: CLAUDE_ID, hostId: id });
    const key = adoptedKeyFor('claude', CLAUDE_ID, id);
    const outside = path.join(n.dir, 'outside.jsonl');
    fs.writeFileSync(outside, claudeUser('a') + claudeUser('b'));
    t.gw.db
      .prepare('UPDATE catalog_upstream_links SET source_ref = ?, marker_offset = 0 WHERE session_key = ?')
      .run(JSON.stringify({ kind: 'file', path: outside }), key);
    for (let i = 0; i < 4; i++) await t.gw.catalog.tick();
    expect(t.gw.state.changesSince(key, 0).events.map((e) => e.kind)).toEqual(['adopted']);
    expect(
      t.logger.lines.some(
        (l) =>
          l.msg === 'catalog: upstream check inconclusive' &&
          String(l.fields?.error).includes('outside the catalog roots'),
      ),
    ).toBe(true);
    expect(t.gw.catalog.nodes.list()[0]?.state).toBe('online');
    expect(fs.existsSync(file)).toBe(true);
  });
});
