// "Continue in Sightline": run the upstream CLI that a provider names (ProviderSource
// .continueCommand), spawned without a shell. The text is remembered first, so the monitor recognises its echo in the
// upstream transcript as Sightline's own and never reports it as human activity.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { ContinueCommand } from './provider';

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

const OUTPUT_CAP = 256 * 1024;

export function runCli(
  cmd: ContinueCommand,
  opts: { env: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number },
): Promise<{ stdout: string }> {
  const bin = findOnPath(cmd.command, opts.env);
  if (!bin) {
    return Promise.reject(
      new CliMissingError(
        `Cannot continue this session: the "${cmd.command}" command is not installed (not found on PATH)`,
      ),
    );
  }
  return new Promise((resolve, reject) => {
    const child = spawn(bin, cmd.args, {
      shell: false,
      env: opts.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(opts.cwd && fs.existsSync(opts.cwd) ? { cwd: opts.cwd } : {}),
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
      reject(new Error(`Cannot run "${cmd.command}": ${err.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve({ stdout });
      else {
        const why = signal ? `was stopped by ${signal}` : `exited with code ${String(code)}`;
        const tail = stderr.trim().split('\n').slice(-3).join(' ').slice(0, 500);
        reject(new Error(`"${cmd.command}" ${why}${tail ? `: ${tail}` : ''}`));
      }
    });
  });
}
