// What the repository tracks: never installed dependencies or build output. A worktree's
// `node_modules` symlink once slipped into a commit (a `node_modules/` ignore rule matches folders
// only), and every checkout that merged it lost its installed packages.
import { execFileSync } from 'node:child_process';
import { expect, it } from 'vitest';

it('tracks no node_modules, out/ or release/ entry, whether folder or symlink', () => {
  const tracked = execFileSync('git', ['ls-files', '--', 'node_modules', 'out', 'release', 'dist'], {
    encoding: 'utf8',
  });
  expect(tracked).toBe('');
});
