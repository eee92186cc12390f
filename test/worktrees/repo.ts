// Real git repositories in temp folders for the worktree tests (the system git; CI installs it).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/temp';

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-C', cwd, ...args], {
    encoding: 'utf8',
    env: { ...process.env, LC_ALL: 'C' },
  }).trim();
}

/** A repository on branch main with one commit of the given files. */
export function makeRepo(
  files: Record<string, string> = { 'shared.txt': 'one\ntwo\nthree\n', 'README.md': '# demo\n' },
): string {
  const dir = fs.realpathSync(tempDir('sightline-repo-'));
  git(dir, 'init', '--quiet', '-b', 'main');
  git(dir, 'config', 'user.name', 'Test Person');
  git(dir, 'config', 'user.email', 'person@example.com');
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  git(dir, 'add', '-A');
  git(dir, 'commit', '--quiet', '-m', 'first');
  return dir;
}

export const FIXTURE_AGENT = path.resolve('test/fixtures/acp-agent/agent.mjs');
