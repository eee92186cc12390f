// The session's worktree changes for the Changes tab (the files and counts, no patch: one file's
// patch is asked for when it is opened, useFilePatch): read again when the gateway says the
// counts changed (the fleet view's worktreeStats), when a run ends, every few seconds while the
// tab is open (an edit that keeps the counts), and on Refresh. The last answer stays on screen
// while the next is computed: git runs in the gateway's child processes, nothing here waits on it.
import { useCallback, useEffect, useState } from 'react';
import type { WorktreeChanges } from '../../../../shared/ipc';
import { call, errorMessage } from '../../lib/api';
import { useFleet } from '../../stores/fleet';

/** While the Changes tab is open, how often it asks again (the gateway reuses an unchanged answer). */
export const POLL_MS = 5000;

export interface DiffState {
  diff?: WorktreeChanges;
  error?: string;
  /** A newer answer is being computed (the one shown may be older). */
  loading: boolean;
  refresh(): void;
}

interface Answer {
  key: string;
  request: string;
  diff?: WorktreeChanges;
  error?: string;
}

export function useWorktreeDiff(sessionKey: string, enabled: boolean): DiffState {
  const signature = useFleet((st) => {
    const s = st.sessions[sessionKey];
    return JSON.stringify([s?.worktreeStats, s?.runStatus, s?.worktree?.baseCommit]);
  });
  const [tick, setTick] = useState(0);
  const request = `${sessionKey}\n${signature}\n${tick}`;
  const [answer, setAnswer] = useState<Answer>({ key: sessionKey, request: '' });
  useEffect(() => {
    if (!enabled) return;
    let live = true;
    call('worktrees:changes', { sessionKey }).then(
      (diff) => live && setAnswer({ key: sessionKey, request, diff }),
      (err: unknown) =>
        live &&
        setAnswer((a) => ({
          key: sessionKey,
          request,
          ...(a.key === sessionKey && a.diff ? { diff: a.diff } : {}),
          error: errorMessage(err),
        })),
    );
    return () => {
      live = false;
    };
  }, [sessionKey, request, enabled]);
  useEffect(() => {
    if (!enabled) return;
    const timer = setInterval(() => !document.hidden && setTick((t) => t + 1), POLL_MS);
    return () => clearInterval(timer);
  }, [enabled]);
  const refresh = useCallback(() => setTick((t) => t + 1), []);
  const mine = answer.key === sessionKey ? answer : undefined;
  return {
    ...(mine?.diff ? { diff: mine.diff } : {}),
    ...(mine?.error ? { error: mine.error } : {}),
    loading: answer.request !== request,
    refresh,
  };
}
