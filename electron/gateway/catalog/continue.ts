// "Continue in Sightline": run the upstream CLI that a provider names (ProviderSource
// .continueCommand), spawned without a shell, in the folder recorded at adoption and only there.
// The text is remembered first, so the monitor recognises its echo in the upstream transcript as
// Sightline's own and never reports it as human activity.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { GatewayError } from '../errors';

/** The executable's path on PATH, or undefined. */
export function findOnPath(command: string, env: NodeJS.ProcessEnv): string | undefined {
  const dirs = (env.PATH ?? '').split(path.delimiter).filter(Boolean);
  const exts = process.platform === 'win32' ? (env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';') : [''];
  for (const d of dirs)
    for (const e of exts) {
      const p = path.join(d, command + e);
      try {
        fs.accessSync(p, fs.constants.X_OK);
        if (fs.statSync(p).isFile()) return p;
      } catch {
        // not here
      }
    }
  return undefined;
}

export class CliMissingError extends Error {}

/** The CLI's path, or the error that says it is not installed. */
export function cliProgram(command: string, env: NodeJS.ProcessEnv): string {
  const bin = findOnPath(command, env);
  if (!bin)
    throw new CliMissingError(
      `Cannot continue this session: the "${command}" command is not installed (not found on PATH)`,
    );
  return bin;
}

/**
 * The folder a continue runs in: the session's working folder as the catalog showed it when the
 * person adopted it (never re-read from the transcript), and it must still exist.
 */
export function continueFolder(cwd: string | null): string {
  if (!cwd)
    throw new GatewayError(
      'unavailable',
      'Cannot continue this session: its working folder was not recorded when it was adopted (adopt it again from the catalog)',
    );
  let dir = false;
  try {
    dir = path.isAbsolute(cwd) && fs.statSync(cwd).isDirectory();
  } catch {
    dir = false;
  }
  if (!dir)
    throw new GatewayError('unavailable', `Cannot continue this session: its folder ${cwd} does not exist`);
  return cwd;
}

const OUTPUT_CAP = 256 * 1024;

export function runCli(
  program: string,
  args: string[],
  opts: { env: NodeJS.ProcessEnv; cwd: string; timeoutMs?: number },
): Promise<{ stdout: string }> {
  const name = path.basename(program);
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, {
      shell: false,
      env: opts.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      cwd: opts.cwd,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      if (stdout.length < OUTPUT_CAP) stdout += d.toString('utf8');
    });
    child.stderr.on('data', (d: Buffer) => {
      if (stderr.length < OUTPUT_CAP) stderr += d.toString('utf8');
    });
    const timer = setTimeout(() => child.kill('SIGTERM'), opts.timeoutMs ?? 30 * 60 * 1000);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`Cannot run "${name}": ${err.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve({ stdout });
      else {
        const why = signal ? `was stopped by ${signal}` : `exited with code ${String(code)}`;
        const tail = stderr.trim().split('\n').slice(-3).join(' ').slice(0, 500);
        reject(new Error(`"${name}" ${why}${tail ? `: ${tail}` : ''}`));
      }
    });
  });
}
