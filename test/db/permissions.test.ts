// The data folder holds transcripts and provider keys: it and the database are the owner's only.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createGateway } from '../../electron/gateway';
import { collectingLogger, tempDir } from '../helpers/gateway';

let root = '';
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

it('creates the data folder 0700 and the database, WAL and shared memory files 0600', () => {
  root = tempDir();
  const dataDir = path.join(root, 'data');
  const gw = createGateway({ dataDir, autoStart: false, logger: collectingLogger() });
  gw.sessions.create({ key: 'agent:main:x' });
  const mode = (f: string) => (fs.statSync(f).mode & 0o777).toString(8);
  expect(mode(dataDir)).toBe('700');
  for (const f of ['sightline.db', 'sightline.db-wal', 'sightline.db-shm'])
    expect(mode(path.join(dataDir, f))).toBe('600');
  gw.close();
});

it('tightens a data folder that already exists with looser bits to 0700 (issue 14.4)', () => {
  root = tempDir();
  const dataDir = path.join(root, 'data');
  fs.mkdirSync(dataDir, { mode: 0o755 });
  fs.chmodSync(dataDir, 0o755);
  const gw = createGateway({ dataDir, autoStart: false, logger: collectingLogger() });
  expect((fs.statSync(dataDir).mode & 0o777).toString(8)).toBe('700');
  gw.close();
});
