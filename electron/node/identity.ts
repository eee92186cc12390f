// The node's stable id: one random id per machine (or per --data-dir), kept in `<dir>/id`, so
// the same machine is the same host across reconnects and restarts. Created once, atomically.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NODE_ID } from '../gateway/nodes/protocol';

export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(env.HOME || os.homedir(), '.sightline-node');
}

export function nodeId(dataDir: string): string {
  const file = path.join(dataDir, 'id');
  const read = () => fs.readFileSync(file, 'utf8').trim();
  try {
    const id = read();
    if (NODE_ID.test(id)) return id;
    throw new Error(`${file} does not hold a node id; remove it to make a new one`);
  } catch (err) {
    if ((err as { code?: string }).code !== 'ENOENT') throw err;
  }
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const id = `n${randomBytes(8).toString('hex')}`;
  // Written aside, then linked into place: a reader never sees a half-written id.
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${id}\n`, { mode: 0o600 });
  try {
    fs.linkSync(tmp, file);
    return id;
  } catch (err) {
    // Another node on this machine made it first: use theirs.
    if ((err as { code?: string }).code === 'EEXIST') return read();
    throw err;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}
