// Finding an ACP agent's binary the way a shell would, before anything is started.
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import type { AcpProfile } from '../../../../shared/ipc/types';

export class AcpCommandNotFoundError extends Error {
  readonly command: string;
  constructor(command: string) {
    super(`ACP agent command not found: ${command}`);
    this.name = 'AcpCommandNotFoundError';
    this.command = command;
  }
}

function isExecutableFile(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    // X_OK means nothing on Windows; existence is the test there.
    accessSync(file, process.platform === 'win32' ? constants.F_OK : constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Windows resolves `agent` to `agent.cmd`/`agent.exe`; elsewhere the name is used as is. */
function candidates(base: string, env: Record<string, string | undefined>): string[] {
  if (process.platform !== 'win32' || path.extname(base) !== '') return [base];
  const exts = (env.PATHEXT ?? '.EXE;.CMD;.BAT;.COM').split(';').filter(Boolean);
  return [base, ...exts.map((ext) => base + ext.toLowerCase())];
}

/**
 * Finds the agent binary the way a shell would: a command containing a path separator is taken
 * relative to `baseDir` (the spawn directory), a bare name is looked up on PATH (the profile's own
 * PATH wins, since that is the environment the child runs with). Returns an absolute path so the
 * spawn never depends on PATH again.
 */
export function resolveCommand(profile: AcpProfile, baseDir: string = process.cwd()): string {
  const { command } = profile;
  if (command.trim() === '') throw new AcpCommandNotFoundError(command);
  const env: Record<string, string | undefined> = { ...process.env, ...profile.env };
  const hasSeparator = command.includes('/') || (process.platform === 'win32' && command.includes('\\'));
  if (path.isAbsolute(command) || hasSeparator) {
    const full = path.resolve(baseDir, command);
    const hit = candidates(full, env).find(isExecutableFile);
    if (hit) return hit;
    throw new AcpCommandNotFoundError(command);
  }
  const dirs = (env.PATH ?? env.Path ?? '').split(path.delimiter).filter(Boolean);
  for (const dir of dirs) {
    const hit = candidates(path.resolve(dir, command), env).find(isExecutableFile);
    if (hit) return hit;
  }
  throw new AcpCommandNotFoundError(command);
}
