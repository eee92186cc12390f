import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A fresh directory under the system temp folder (each test its own data). */
export function tempDir(prefix = 'sightline-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}
