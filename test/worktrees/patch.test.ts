// The Changes tab's side-by-side rows, read from what the real `git diff` prints: a modified
// file, an added one, a deleted one, a rename, a removed line that itself starts with "-- ", and
// a path git has to quote.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parsePatch, unquotePath } from '../../shared/patch';
import { git, makeRepo } from './repo';

let repo = '';
afterEach(() => fs.rmSync(repo, { recursive: true, force: true }));

const diff = (dir: string) => {
  git(dir, 'add', '-A');
  return git(dir, 'diff', '--no-color', '-M', '--cached', 'HEAD') + '\n';
};

describe('parsePatch', () => {
  it('pairs removed and added lines, keeps context on both sides, names each file', () => {
    repo = makeRepo({
      'shared.txt': 'one\ntwo\nthree\n',
      'gone.txt': 'bye\n',
      'sql.txt': '-- a comment\nselect 1;\n',
      'old-name.txt': 'same\ncontent\nhere\n',
    });
    fs.writeFileSync(path.join(repo, 'shared.txt'), 'one\nTWO\nthree\nfour\n');
    fs.rmSync(path.join(repo, 'gone.txt'));
    fs.writeFileSync(path.join(repo, 'sql.txt'), 'select 1;\n');
    fs.renameSync(path.join(repo, 'old-name.txt'), path.join(repo, 'new-name.txt'));
    fs.writeFileSync(path.join(repo, 'tab\there é.md'), 'hi\n');
    const files = parsePatch(diff(repo));
    expect(files.map((f) => [f.path, f.oldPath])).toEqual([
      ['gone.txt', undefined],
      ['new-name.txt', 'old-name.txt'],
      ['shared.txt', undefined],
      ['sql.txt', undefined],
      ['tab\there é.md', undefined],
    ]);
    const shared = files[2]!;
    expect(shared.hunks).toHaveLength(1);
    expect(shared.hunks[0]!.rows).toEqual([
      { old: { no: 1, text: 'one', kind: 'same' }, new: { no: 1, text: 'one', kind: 'same' } },
      { old: { no: 2, text: 'two', kind: 'del' }, new: { no: 2, text: 'TWO', kind: 'add' } },
      { old: { no: 3, text: 'three', kind: 'same' }, new: { no: 3, text: 'three', kind: 'same' } },
      { new: { no: 4, text: 'four', kind: 'add' } },
    ]);
    expect(files[0]!.hunks[0]!.rows).toEqual([{ old: { no: 1, text: 'bye', kind: 'del' } }]);
    expect(files[1]!.hunks).toEqual([]);
    expect(files[3]!.hunks[0]!.rows).toEqual([
      { old: { no: 1, text: '-- a comment', kind: 'del' } },
      { old: { no: 2, text: 'select 1;', kind: 'same' }, new: { no: 1, text: 'select 1;', kind: 'same' } },
    ]);
    expect(files[4]!.hunks[0]!.rows).toEqual([{ new: { no: 1, text: 'hi', kind: 'add' } }]);
  });

  it('marks a binary file and undoes git quoting', () => {
    repo = makeRepo({ 'a.txt': 'a\n' });
    fs.writeFileSync(path.join(repo, 'pic.bin'), Buffer.from([0, 1, 2, 0, 255]));
    const [bin] = parsePatch(diff(repo));
    expect(bin).toEqual({ path: 'pic.bin', binary: true, hunks: [] });
    expect(unquotePath('"a/caf\\303\\251\\tx"')).toBe('a/café\tx');
    expect(unquotePath('plain')).toBe('plain');
    expect(parsePatch('')).toEqual([]);
  });
});
