// A build that several test files may ask for at once (the renderer, the node file): one builds
// under a lock folder while the others wait; a lock older than two minutes is a leftover.
import fs from 'node:fs';
import path from 'node:path';

export async function buildOnce(
  lock: string,
  isFresh: () => boolean,
  build: () => Promise<unknown>,
): Promise<void> {
  if (isFresh()) return;
  fs.mkdirSync(path.dirname(lock), { recursive: true });
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch {
      const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 120_000) fs.rmSync(lock, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    if (!isFresh()) await build();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}
