// The node's roots guard (electron/node/guard.ts) across requests: a checked path is remembered
// with its file's identity, so the next use costs one lstat; a path whose file changed identity
// (replaced, swapped for a link, its folder swapped for a link) is checked again from the start,
// and a file swapped between the check and the open is not read.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { nodeFs } from '../../electron/gateway/catalog/kit/fsio';
import { guardedFs, OutsideRootsError } from '../../electron/node/guard';
import { tempDir } from '../helpers/temp';

let dir: string;
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function setup() {
  dir = tempDir('sightline-guard-');
  const root = path.join(dir, 'root');
  const folder = path.join(root, 'proj');
  const outside = path.join(dir, 'outside');
  fs.mkdirSync(folder, { recursive: true });
  fs.mkdirSync(outside);
  const file = path.join(folder, 'a.jsonl');
  fs.writeFileSync(file, 'inside\n');
  fs.writeFileSync(path.join(outside, 'a.jsonl'), 'secret\n');
  return { root, folder, outside, file };
}

describe('the roots guard across requests', () => {
  it('serves a checked file on one lstat while it stays the same file', () => {
    const { root, file } = setup();
    const g = guardedFs([root]);
    expect(g.statSync(file).size).toBe(7);
    g.reset();
    const lstat = vi.spyOn(fs, 'lstatSync');
    const realpath = vi.spyOn(fs.realpathSync, 'native');
    try {
      expect(g.statSync(file).size).toBe(7);
      expect(lstat).toHaveBeenCalledTimes(1);
      expect(realpath).not.toHaveBeenCalled();
    } finally {
      lstat.mockRestore();
      realpath.mockRestore();
    }
  });

  it('checks again when the file or its folder became a link to outside the roots', () => {
    const { root, folder, outside, file } = setup();
    const g = guardedFs([root]);
    g.statSync(file);
    g.reset();
    fs.rmSync(file);
    fs.symlinkSync(path.join(outside, 'a.jsonl'), file);
    expect(() => g.statSync(file)).toThrow(OutsideRootsError);
    g.reset();
    fs.rmSync(folder, { recursive: true });
    fs.symlinkSync(outside, folder);
    expect(() => g.statSync(file)).toThrow(OutsideRootsError);
    expect(() => g.openSync(file, 'r')).toThrow(OutsideRootsError);
  });

  it('does not read a file swapped between the check and the open', () => {
    const { root, outside, file } = setup();
    // The swap happens right before the real open, after the guard checked the path.
    const swapping = {
      ...nodeFs,
      openSync(p: string, flags: string) {
        fs.rmSync(file);
        fs.symlinkSync(path.join(outside, 'a.jsonl'), file);
        return nodeFs.openSync(p, flags);
      },
    };
    const g = guardedFs([root], swapping);
    expect(() => g.openSync(file, 'r')).toThrow('the file changed while it was opened; not read');
    // The next use checks the path afresh, and refuses it.
    g.reset();
    expect(() => g.statSync(file)).toThrow(OutsideRootsError);
  });
});
