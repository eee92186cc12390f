// A real pseudo-terminal without native modules: util-linux `script` (Linux) or BSD `script`
// (macOS) runs the command with its stdin/stdout/stderr on a fresh pty and relays it over pipes.
// The command's arguments never pass through a shell string built from agent input: on Linux,
// where `script -c` takes one string, the argv goes into a 0700 script file in a 0700 temp folder,
// each argument single-quoted (POSIX: inside '…' nothing is special but the quote itself), and
// `script` runs that file by its own path, which Sightline chose.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GatewayError } from '../../errors';

export interface PtyPlan {
  program: string;
  args: string[];
  /** Remove when the terminal is done (the temp folder of the Linux script file). */
  cleanup(): void;
}

/** `script` on PATH, or undefined. */
export function findScript(env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const dir of (env.PATH ?? '/usr/bin:/bin').split(path.delimiter)) {
    const candidate = path.join(dir || '.', 'script');
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** One argument for /bin/sh, single-quoted. */
export const shQuote = (arg: string): string => `'${arg.replaceAll("'", `'\\''`)}'`;

/** How to run `argv` on a pty here; says plainly why not when this machine cannot. */
export function ptyPlan(argv: string[]): PtyPlan {
  if (argv.some((a) => a.includes('\0')))
    throw new GatewayError('invalid_argument', 'An argument holds a NUL byte');
  const hand = `Run it yourself in a terminal, then Retry: ${argv.join(' ')}`;
  if (process.platform === 'win32')
    throw new GatewayError('unavailable', `Sightline cannot open a terminal on Windows. ${hand}`);
  const script = findScript();
  if (!script)
    throw new GatewayError(
      'unavailable',
      `The \`script\` program (util-linux or BSD) is not installed. ${hand}`,
    );
  if (process.platform === 'darwin')
    return { program: script, args: ['-q', '/dev/null', ...argv], cleanup: () => undefined };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-login-'));
  fs.chmodSync(dir, 0o700);
  const file = path.join(dir, 'login.sh');
  fs.writeFileSync(file, `exec ${argv.map(shQuote).join(' ')}\n`, { mode: 0o700 });
  return {
    program: script,
    // -q quiet, -e the command's exit code, -c the command; /dev/null: no typescript file.
    args: ['-q', '-e', '-c', `/bin/sh ${shQuote(file)}`, '/dev/null'],
    cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}
