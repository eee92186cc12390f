// A real pseudo-terminal without native modules: util-linux `script` (Linux) or BSD `script`
// (macOS) runs the command with its stdin/stdout/stderr on a fresh pty and relays it over pipes.
// The command's arguments never pass through a shell string built from agent input: on Linux,
// where `script -c` takes one string, the argv goes into a 0700 script file in a 0700 temp folder,
// each argument single-quoted (POSIX: inside '…' nothing is special but the quote itself), and
// `script` runs that file by its own path, which Sightline chose.
// Size: `script` gives the pty its own stdin's size, and its stdin is a pipe here, so the pty
// starts at 0×0 (full-screen programs then draw for a guessed size). The panel's size is set with
// `stty rows R cols C` on the pty before the command is exec'd (R and C are validated integers).
// Later sizes (Linux): the script file records the pty's path (`tty`), and the gateway runs
// `stty -F <that pty> rows R cols C`, whose TIOCSWINSZ makes the kernel send SIGWINCH to the
// program in the foreground, as a terminal window does. macOS: the size is set at the start only.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GatewayError } from '../../errors';

/** A terminal's size in character cells (validated integers, see LOGIN_SIZE). */
export interface PtySize {
  cols: number;
  rows: number;
}

export interface PtyPlan {
  program: string;
  args: string[];
  /** Gives the running pty a new size (the program gets SIGWINCH); absent where unsupported. */
  resize?(size: PtySize): Promise<void>;
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

const cells = (n: number) => {
  if (!Number.isInteger(n) || n < 1 || n > 10_000)
    throw new GatewayError('invalid_argument', `Bad size: ${n}`);
  return String(n);
};

/** `stty -F <pty> rows R cols C`, the pty read from the file the script wrote at its start. */
async function sttyResize(ttyFile: string, size: PtySize): Promise<void> {
  let tty = '';
  try {
    tty = fs.readFileSync(ttyFile, 'utf8').trim();
  } catch {
    throw new GatewayError('unavailable', 'The terminal is not ready yet');
  }
  if (!/^\/dev\/pts\/\d+$/.test(tty)) throw new GatewayError('unavailable', `Not a pty: ${tty}`);
  const args = ['-F', tty, 'rows', cells(size.rows), 'cols', cells(size.cols)];
  await new Promise<void>((resolve, reject) =>
    execFile('stty', args, { timeout: 5_000 }, (err, _out, stderr) =>
      err ? reject(new GatewayError('unavailable', `stty: ${stderr.trim() || err.message}`)) : resolve(),
    ),
  );
}

/** How to run `argv` on a pty of `size` here; says plainly why not when this machine cannot. */
export function ptyPlan(argv: string[], size: PtySize): PtyPlan {
  if (argv.some((a) => a.includes('\0')))
    throw new GatewayError('invalid_argument', 'An argument holds a NUL byte');
  const [rows, cols] = [cells(size.rows), cells(size.cols)];
  const hand = `Run it yourself in a terminal, then Retry: ${argv.join(' ')}`;
  if (process.platform === 'win32')
    throw new GatewayError('unavailable', `Sightline cannot open a terminal on Windows. ${hand}`);
  const script = findScript();
  if (!script)
    throw new GatewayError(
      'unavailable',
      `The \`script\` program (util-linux or BSD) is not installed. ${hand}`,
    );
  if (process.platform === 'darwin') {
    // BSD script runs argv as given (no shell string): a fixed /bin/sh program sets the size and
    // execs the command, whose arguments stay positional parameters ("$@"), never parsed.
    const sized = ['/bin/sh', '-c', 'stty rows "$1" cols "$2"; shift 2; exec "$@"', 'sh', rows, cols];
    return { program: script, args: ['-q', '/dev/null', ...sized, ...argv], cleanup: () => undefined };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-login-'));
  fs.chmodSync(dir, 0o700);
  const file = path.join(dir, 'login.sh');
  const ttyFile = path.join(dir, 'tty');
  const lines = [
    `tty > ${shQuote(ttyFile)}`,
    `stty rows ${rows} cols ${cols}`,
    `exec ${argv.map(shQuote).join(' ')}`,
  ];
  fs.writeFileSync(file, `${lines.join('\n')}\n`, { mode: 0o700 });
  return {
    program: script,
    // -q quiet, -e the command's exit code, -c the command; /dev/null: no typescript file.
    args: ['-q', '-e', '-c', `/bin/sh ${shQuote(file)}`, '/dev/null'],
    resize: (next) => sttyResize(ttyFile, next),
    cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}
