// Paired-node tests: the node file built once (rebuilt when its sources are newer), each test's
// own catalog roots and node data dir, and the command line of a local node over those roots.
import fs from 'node:fs';
import path from 'node:path';
import { buildNode, NODE_BUNDLE } from '../../scripts/build-node.mjs';
import { buildOnce } from '../helpers/build-once';
import type { Gateway } from '../../electron/gateway';
import { tempDir } from '../helpers/temp';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SOURCES = [
  'electron/node',
  'electron/gateway/catalog',
  'electron/gateway/nodes',
  'electron/gateway/runtime/acp',
  'shared',
];
const LOCK = path.join(ROOT, 'out/.node-build.lock');

function newest(dir: string): number {
  let n = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    n = Math.max(n, e.isDirectory() ? newest(p) : fs.statSync(p).mtimeMs);
  }
  return n;
}

const fresh = () =>
  fs.existsSync(NODE_BUNDLE) &&
  fs.statSync(NODE_BUNDLE).mtimeMs >= Math.max(...SOURCES.map((s) => newest(path.join(ROOT, s))));

/** out/node/sightline-node.mjs, built when missing or older than its sources. */
export async function nodeBundle(): Promise<string> {
  await buildOnce(LOCK, fresh, () => buildNode());
  return NODE_BUNDLE;
}

export interface Roots {
  claude: string;
  codex: string;
  opencode: string;
  pi: string;
}

/** Four empty catalog roots under `dir`. */
export function makeRoots(dir: string): Roots {
  const roots = {
    claude: path.join(dir, 'claude', 'projects'),
    codex: path.join(dir, 'codex', 'sessions'),
    opencode: path.join(dir, 'opencode'),
    pi: path.join(dir, 'pi', 'sessions'),
  };
  for (const r of Object.values(roots)) fs.mkdirSync(r, { recursive: true });
  return roots;
}

export interface TestNode {
  dir: string;
  roots: Roots;
  dataDir: string;
  /** The local command that runs this node (node + the bundled file + its roots). */
  command: string[];
}

/** A node's own roots and data dir, and the command line that serves them. */
export async function makeNode(extra: string[] = []): Promise<TestNode> {
  const bundle = await nodeBundle();
  const dir = tempDir('sightline-node-');
  const roots = makeRoots(path.join(dir, 'home'));
  const dataDir = path.join(dir, 'node-data');
  return {
    dir,
    roots,
    dataDir,
    command: [
      process.execPath,
      bundle,
      '--stdio',
      ...Object.entries(roots).flatMap(([id, r]) => [`--${id}-root`, r]),
      '--data-dir',
      dataDir,
      ...extra,
    ],
  };
}

export interface DownableNode extends TestNode {
  /** The node's pid file (the wrapper execs the node, so the pid is the node's). */
  pidFile: string;
  pid(): number;
  /** Kills the node (SIGKILL) and keeps it from starting again until up(). */
  down(): void;
  up(): void;
  /** How many times the node's command was started (refused starts included). */
  starts(): number;
}

/** A node behind a wrapper that records each start and refuses to start while it is down. */
export async function downableNode(): Promise<DownableNode> {
  const n = await makeNode();
  const pidFile = path.join(n.dir, 'pid');
  const downFile = path.join(n.dir, 'down');
  const startsFile = path.join(n.dir, 'starts');
  const script = path.join(n.dir, 'node.sh');
  const q = (a: string) => `'${a.replace(/'/g, `'\\''`)}'`;
  fs.writeFileSync(
    script,
    `echo start >> ${q(startsFile)}\n` +
      `[ -e ${q(downFile)} ] && { echo "the test keeps this node down" >&2; exit 1; }\n` +
      `echo $$ > ${q(pidFile)}\nexec ${n.command.map(q).join(' ')}\n`,
  );
  const pid = () => Number(fs.readFileSync(pidFile, 'utf8'));
  return {
    ...n,
    command: ['/bin/sh', script],
    pidFile,
    pid,
    down() {
      fs.writeFileSync(downFile, '');
      process.kill(pid(), 'SIGKILL');
    },
    up: () => fs.rmSync(downFile, { force: true }),
    starts: () =>
      fs.existsSync(startsFile) ? fs.readFileSync(startsFile, 'utf8').split('\n').length - 1 : 0,
  };
}

/** A link's missing streak as stored. */
export function missingStreak(gw: Gateway, sessionKey: string): number {
  const row = gw.db
    .prepare('SELECT missing_streak AS s FROM catalog_upstream_links WHERE session_key = ?')
    .get(sessionKey) as { s: number } | undefined;
  if (!row) throw new Error(`no upstream link for ${sessionKey}`);
  return row.s;
}
