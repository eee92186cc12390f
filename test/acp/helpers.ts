import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from '../helpers/poll';
import {
  AcpChild,
  type AcpChildOptions,
  type AcpProfile,
  type AcpUpdate,
} from '../../electron/gateway/runtime/acp';

export const FIXTURE = fileURLToPath(new URL('../fixtures/acp-agent/agent.mjs', import.meta.url));

export function fixtureProfile(env: Record<string, string> = {}): AcpProfile {
  return { id: 'fixture', name: 'Fixture agent', command: process.execPath, args: [FIXTURE], env };
}

/** A fresh real directory (macOS /tmp is a symlink, so compare against real paths). */
export function makeWorkspace(): { root: string; dir: string; cleanup: () => void } {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'sightline-acp-')));
  const dir = path.join(root, 'work');
  return { root, dir, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

export interface Started {
  child: AcpChild;
  updates: AcpUpdate[];
  warnings: string[];
}

export async function startFixture(
  cwd: string,
  over: Partial<AcpChildOptions> & { env?: Record<string, string> } = {},
): Promise<Started> {
  const updates: AcpUpdate[] = [];
  const warnings: string[] = [];
  const { env, ...rest } = over;
  const child = await AcpChild.start({
    profile: fixtureProfile(env),
    cwd,
    logger: { warn: (m) => warnings.push(m) },
    onUpdate: (u) => updates.push(u),
    onPermission: () => Promise.resolve({ outcome: 'cancelled' }),
    ...rest,
  });
  return { child, updates, warnings };
}

/** 'alive', or the errno code process.kill(pid, 0) throws (ESRCH once the process is gone). */
export function probe(pid: number | undefined): string {
  if (pid === undefined) throw new Error('no pid');
  try {
    process.kill(pid, 0);
    return 'alive';
  } catch (err) {
    return (err as NodeJS.ErrnoException).code ?? 'unknown';
  }
}

export function messages(updates: AcpUpdate[]): string {
  return updates.map((u) => (u.kind === 'message' ? u.text : '')).join('');
}

/** Resolves once the fixture's waiting script (hang, deaf) has the prompt: its signal on stderr. */
export function waiting(child: AcpChild, count = 1): Promise<unknown> {
  const said = () => child.stderrTail().match(/fixture: \w+ is waiting/g)?.length ?? 0;
  return waitFor(() => said() >= count, 5_000, 'the fixture agent to wait');
}
