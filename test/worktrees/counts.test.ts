// A fleet row's counts from the real git: one `git diff --raw --numstat` read by position. Names
// that would fool a reader by pattern (starting with ":" or digits, holding a tab), a rename made
// with a plain `mv`, a binary file, a deletion, an untracked file and an ignored one; then a
// commit on the branch, after which "uncommitted" is read against HEAD. The agent's own index is
// never written, and counting writes no file contents into the repository.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { WorktreeInfo } from '../../shared/domain';
import { commitsOf, countChanges, patchOf } from '../../electron/gateway/worktrees/diff';
import { git, makeRepo } from './repo';

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  dirs = [];
});

function worktree(): { w: WorktreeInfo; index: string } {
  const repo = makeRepo({
    'keep.txt': 'a\nb\nc\n',
    'gone.txt': 'bye\n',
    'moved-from.txt': 'same\ncontent\nhere\nand\nmore\n',
    '.gitignore': '*.log\n',
  });
  const wt = path.join(fs.realpathSync(os.tmpdir()), `sightline-counts-${process.pid}-${Date.now()}`);
  dirs.push(repo, wt);
  git(repo, 'worktree', 'add', '--quiet', '-b', 'sightline/counts', wt);
  const w = {
    path: wt,
    branch: 'sightline/counts',
    base: 'main',
    baseCommit: git(repo, 'rev-parse', 'HEAD'),
    repository: repo,
  };
  return { w, index: path.join(wt, '..', `${path.basename(wt)}.index`) };
}

describe('worktree counts', () => {
  it('reads files, +/− and uncommitted by position, before and after a commit', async () => {
    const { w, index } = worktree();
    dirs.push(index);
    const write = (name: string, data: string | Buffer) => fs.writeFileSync(path.join(w.path, name), data);
    write('keep.txt', 'a\nB\nc\nd\n');
    fs.rmSync(path.join(w.path, 'gone.txt'));
    fs.renameSync(path.join(w.path, 'moved-from.txt'), path.join(w.path, 'moved-to.txt'));
    write(':colon.txt', 'x\n');
    write('12\t3\tname.txt', 'one\ntwo\n');
    write('pic.bin', Buffer.from([0, 1, 2, 0, 255]));
    write('debug.log', 'ignored\n');
    const ownIndex = fs.readFileSync(
      git(w.path, 'rev-parse', '--path-format=absolute', '--git-path', 'index'),
    );
    // "Intent to add" stores git's empty blob once; nothing else is written.
    const objects = () =>
      git(w.repository, 'cat-file', '--batch-all-objects', '--batch-check=%(objectname)')
        .split('\n')
        .filter((o) => o !== 'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391');
    const before = objects();

    const first = await countChanges(w, index);
    expect(first.files).toEqual([
      { path: '12\t3\tname.txt', status: 'added', additions: 2, deletions: 0 },
      { path: ':colon.txt', status: 'added', additions: 1, deletions: 0 },
      { path: 'gone.txt', status: 'deleted', additions: 0, deletions: 1 },
      { path: 'keep.txt', status: 'modified', additions: 2, deletions: 1 },
      { path: 'moved-to.txt', oldPath: 'moved-from.txt', status: 'renamed', additions: 0, deletions: 0 },
      { path: 'pic.bin', status: 'added', additions: 0, deletions: 0, binary: true },
    ]);
    expect(first.uncommitted).toEqual(first.files.map((f) => f.path));
    expect(objects()).toEqual(before);
    expect(
      fs.readFileSync(git(w.path, 'rev-parse', '--path-format=absolute', '--git-path', 'index')),
    ).toEqual(ownIndex);
    const renamed = await patchOf(w, index, first.files[4]);
    expect(renamed).toContain('rename from moved-from.txt\nrename to moved-to.txt');

    // The agent commits part of its work: only the rest is uncommitted; one commit on the branch.
    git(w.path, 'add', 'keep.txt');
    git(w.path, '-c', 'user.name=A', '-c', 'user.email=a@example.com', 'commit', '--quiet', '-m', 'keep');
    const after = await countChanges(w, index);
    expect(after.files).toEqual(first.files);
    expect(after.uncommitted).toEqual([
      '12\t3\tname.txt',
      ':colon.txt',
      'gone.txt',
      'moved-to.txt',
      'pic.bin',
    ]);
    expect(await commitsOf(w)).toBe(1);
  });
});
