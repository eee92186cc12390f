// Installs the reference implementation for the side-by-side benchmark: the published `openclaw`
// package and the Node 24 it needs (npm's node-linux-<arch> package), each with
// `npm install --ignore-scripts` into a cache folder (SIGHTLINE_PEER_DIR, default
// <tmp>/sightline-peer). A finished install is reused. Returns undefined with a reason when the
// reference cannot be installed here (no network, unsupported platform, npm failing).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const OPENCLAW_VERSION = '2026.9.6';
export const NODE24_VERSION = '24.22.3';

export interface PeerRuntime {
  node: string;
  dist: string;
  version: string;
}

function npmInstall(dir: string, spec: string): string | undefined {
  fs.mkdirSync(dir, { recursive: true });
  const pkg = path.join(dir, 'package.json');
  if (!fs.existsSync(pkg)) fs.writeFileSync(pkg, '{ "name": "sightline-peer", "private": true }\n');
  const r = spawnSync(
    'npm',
    [
      'install',
      '--ignore-scripts',
      '--no-audit',
      '--no-fund',
      '--save-exact',
      '--engine-strict=false',
      '--loglevel=error',
      spec,
    ],
    { cwd: dir, encoding: 'utf8', timeout: 15 * 60_000 },
  );
  if (r.status === 0) return undefined;
  const why = (r.stderr || r.error?.message || `exit ${r.status}`).trim().split('\n').slice(-1)[0];
  return `npm install ${spec} failed: ${why}`;
}

export function installPeer(): PeerRuntime | { skipped: string } {
  const arch = { x64: 'x64', arm64: 'arm64' }[os.arch() as string];
  if (os.platform() !== 'linux' || !arch)
    return { skipped: `no Node 24 package for ${os.platform()} ${os.arch()}` };
  const root = process.env.SIGHTLINE_PEER_DIR ?? path.join(os.tmpdir(), 'sightline-peer');
  const nodeDir = path.join(root, `node-${NODE24_VERSION}`);
  const node = path.join(nodeDir, 'node_modules', `node-linux-${arch}`, 'bin', 'node');
  const ocDir = path.join(root, `openclaw-${OPENCLAW_VERSION}`);
  const done = path.join(ocDir, '.installed');
  const dist = path.join(ocDir, 'node_modules', 'openclaw', 'dist');
  const version = (bin: string) =>
    spawnSync(bin, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout?.trim();
  if (!fs.existsSync(node) || version(node) !== NODE24_VERSION) {
    fs.rmSync(nodeDir, { recursive: true, force: true });
    const failed = npmInstall(nodeDir, `node-linux-${arch}@${NODE24_VERSION}`);
    if (failed) return { skipped: failed };
    if (version(node) !== NODE24_VERSION)
      return { skipped: `the installed Node ${NODE24_VERSION} does not run here` };
  }
  if (!fs.existsSync(done)) {
    fs.rmSync(ocDir, { recursive: true, force: true });
    const failed = npmInstall(ocDir, `openclaw@${OPENCLAW_VERSION}`);
    if (failed) return { skipped: failed };
    fs.writeFileSync(done, new Date().toISOString());
  }
  return { node, dist, version: OPENCLAW_VERSION };
}
