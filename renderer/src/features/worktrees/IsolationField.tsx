// New session: where the agent works. In a git repository it can get its own worktree on a new
// branch (the default for real agents, so parallel agents never write into the same files) or work
// in place; the base branch can be chosen. A folder that is not a repository says it starts in place.
import { useEffect, useState } from 'react';
import type { WorktreeProbe } from '../../../../shared/ipc';
import { call } from '../../lib/api';

export type Isolation = 'worktree' | 'none';

export interface IsolationState {
  probe?: WorktreeProbe;
  mode: Isolation;
  base: string;
  setMode(m: Isolation): void;
  setBase(b: string): void;
  /** What sessions:start gets: nothing until the folder was probed (the gateway's default then). */
  args: { isolation?: Isolation; base?: string };
}

/** Probes the folder (debounced); `real`: the runner is a real agent (isolated by default). */
export function useIsolation(cwd: string, real: boolean): IsolationState {
  const [answer, setAnswer] = useState<{ asked: string; probe: WorktreeProbe } | null>(null);
  const [chosen, setMode] = useState<Isolation | null>(null);
  const [picked, setBase] = useState('');
  useEffect(() => {
    const asked = cwd.trim();
    if (!asked.startsWith('/') && !/^[A-Za-z]:[\\/]/.test(asked)) return;
    let live = true;
    const timer = setTimeout(() => {
      call('worktrees:probe', { path: asked }).then(
        (probe) => live && setAnswer({ asked, probe }),
        () => undefined, // the folder field says what is wrong with the path
      );
    }, 250);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [cwd]);
  const probe = answer && answer.asked === cwd.trim() ? answer.probe : undefined;
  const repo = !!probe?.repository && !probe.inPlaceReason;
  const mode: Isolation = chosen ?? (real ? 'worktree' : 'none');
  const base = picked || probe?.branch || probe?.branches?.[0] || '';
  const args: IsolationState['args'] = !repo
    ? {}
    : mode === 'none'
      ? { isolation: 'none' }
      : { isolation: 'worktree', ...(base && base !== probe?.branch ? { base } : {}) };
  return { ...(probe ? { probe } : {}), mode, base, setMode, setBase, args };
}

export function IsolationField({ state }: { state: IsolationState }) {
  const { probe, mode, base, setMode, setBase } = state;
  if (!probe) return null;
  if (probe.inPlaceReason || !probe.repository)
    return (
      <>
        <span className="label-like">Works in</span>
        <p className="field-note" data-testid="start-in-place">
          This folder: {probe.inPlaceReason ?? 'it is not in a git repository'}, so the agent starts in place.
        </p>
      </>
    );
  return (
    <>
      <span className="label-like">Works in</span>
      <div className="isolation-choice" role="radiogroup" aria-label="Where the agent works">
        <label>
          <input
            type="radio"
            data-testid="start-isolated"
            checked={mode === 'worktree'}
            onChange={() => setMode('worktree')}
          />{' '}
          Its own worktree on a new branch, from{' '}
          <select
            data-testid="start-base"
            aria-label="Base branch"
            value={base}
            disabled={mode !== 'worktree'}
            onChange={(e) => setBase(e.target.value)}
          >
            {(probe.branches ?? []).map((b) => (
              <option key={b} value={b}>
                {b}
              </option>
            ))}
          </select>
        </label>
        <label>
          <input
            type="radio"
            data-testid="start-in-place-choice"
            checked={mode === 'none'}
            onChange={() => setMode('none')}
          />{' '}
          In place: in {probe.repository} itself (other agents there write into the same files)
        </label>
      </div>
    </>
  );
}
