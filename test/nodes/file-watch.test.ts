// The node's file watch (issue 31, electron/node/file-watch.ts) on real files and real fs.watch:
// at most `max` watchers, the rest watched once there is room; links sharing a file share one
// watcher; a burst over several files is one `changed` frame; a deleted file is reported as such
// and watched again, by retry(), once it is back; close() releases everything.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileWatch, type FileWatch } from '../../electron/node/file-watch';
import type { ChangedFrame } from '../../electron/gateway/nodes/protocol';
import { tempDir, waitFor } from '../helpers/gateway';

let dir: string;
let frames: ChangedFrame[];
let fw: FileWatch;

beforeEach(() => {
  dir = tempDir('sightline-file-watch-');
  frames = [];
});
afterEach(() => {
  fw?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function files(n: number): string[] {
  return Array.from({ length: n }, (_, i) => {
    const f = path.join(dir, `t${i}.jsonl`);
    fs.writeFileSync(f, '{}\n');
    return f;
  });
}

describe('the node watching its links’ files', () => {
  it('holds at most max watchers, shares one per file, and watches the rest once there is room', () => {
    fw = createFileWatch({ push: (f) => void frames.push(f), max: 2 });
    const [a, b, c] = files(3);
    fw.set(1, [a!]);
    fw.set(2, [a!]);
    fw.set(3, [b!]);
    fw.set(4, [c!]);
    expect(fw.files()).toBe(2);
    fw.drop(3);
    expect(fw.files()).toBe(1);
    fw.retry();
    expect(fw.files()).toBe(2);
    fw.drop(1);
    expect(fw.files()).toBe(2);
    fw.drop(2);
    expect(fw.files()).toBe(1);
    fw.close();
    expect(fw.files()).toBe(0);
  });

  it('a burst over two files is one frame naming both links; a deletion is reported and the file watched again when back', async () => {
    fw = createFileWatch({ push: (f) => void frames.push(f) });
    const [a, b] = files(2);
    fw.set(7, [a!]);
    fw.set(9, [b!]);
    fs.appendFileSync(a!, '{"n":1}\n');
    fs.appendFileSync(b!, '{"n":2}\n');
    await waitFor(() => frames.length > 0, 5000, 'a changed frame');
    expect(frames).toEqual([{ type: 'changed', ids: [7, 9] }]);

    frames = [];
    fs.rmSync(a!);
    await waitFor(() => frames.length > 0, 5000, 'the deletion');
    expect(frames).toEqual([{ type: 'changed', ids: [7], deleted: [7] }]);
    expect(fw.files()).toBe(1);
    fw.retry();
    expect(fw.files()).toBe(1);
    fs.writeFileSync(a!, '{}\n');
    fw.retry();
    expect(fw.files()).toBe(2);
  });
});
