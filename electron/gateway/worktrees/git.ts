// The system `git`, run as a program with an argument array: never a shell, never a string a
// shell could split. Every call is asynchronous (a child process), so git's work never blocks
// the gateway's thread. Hooks are switched off: a repository's hooks are programs the person did
// not agree to run because they started an agent.
import { execFile } from 'node:child_process';
import { GatewayError } from '../errors';

export interface GitResult {
  stdout: string;
  stderr: string;
  code: number;
}

/** Inherited variables that would point git somewhere else than the folder we name. */
const REDIRECTS = ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_OBJECT_DIRECTORY', 'GIT_COMMON_DIR'];
const MAX_OUTPUT = 256 * 1024 * 1024;

export const gitMissing = () =>
  new GatewayError(
    'unavailable',
    'git is not installed (no `git` program on PATH): worktrees need the system git',
  );

function environment(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of REDIRECTS) delete env[name];
  return { ...env, GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C', ...extra };
}

/**
 * Runs `git -C <cwd> <args>`; resolves with the exit code (a non-zero code is an answer, not an
 * error). Rejects only when git cannot run at all (missing: `gitMissing`).
 */
export function git(
  cwd: string,
  args: readonly string[],
  opts: { env?: Record<string, string> } = {},
): Promise<GitResult> {
  const argv = [
    '-c',
    'core.hooksPath=/dev/null',
    '-c',
    'core.fsmonitor=false',
    '-c',
    'core.quotePath=false',
    '-C',
    cwd,
    ...args,
  ];
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      argv,
      { env: environment(opts.env ?? {}), maxBuffer: MAX_OUTPUT, encoding: 'utf8', windowsHide: true },
      (err, stdout, stderr) => {
        const code: unknown = err ? (err as { code?: unknown }).code : 0;
        if (code === 'ENOENT') return reject(gitMissing());
        if (typeof code !== 'number')
          return reject(new GatewayError('internal', `git failed: ${err?.message}`));
        resolve({ stdout, stderr, code });
      },
    );
  });
}

/** The same, for an answer that must succeed: a non-zero exit becomes `failure(stderr)`. */
export async function gitOk(
  cwd: string,
  args: readonly string[],
  failure: (stderr: string) => Error,
  opts: { env?: Record<string, string> } = {},
): Promise<string> {
  const r = await git(cwd, args, opts);
  if (r.code !== 0) throw failure(firstLines(r.stderr || r.stdout));
  return r.stdout;
}

/** git's own words, short enough for a message. */
export function firstLines(text: string, n = 3): string {
  return text.trim().split('\n').slice(0, n).join(' ').slice(0, 400);
}
