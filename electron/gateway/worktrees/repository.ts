// The owner of the `worktrees` table (migration 017): which session works in which worktree.
import type { WorktreeInfo } from '../../../shared/domain';
import type { Db } from '../db/open';

export type WorktreeState = 'creating' | 'ready';
export interface WorktreeRow extends WorktreeInfo {
  sessionKey: string;
  state: WorktreeState;
  createdAt: number;
}

type Raw = {
  session_key: string;
  path: string;
  branch: string;
  base: string;
  base_commit: string;
  repository: string;
  state: WorktreeState;
  created_at: number;
};

const toRow = (r: Raw): WorktreeRow => ({
  sessionKey: r.session_key,
  path: r.path,
  branch: r.branch,
  base: r.base,
  baseCommit: r.base_commit,
  repository: r.repository,
  state: r.state,
  createdAt: r.created_at,
});

export type WorktreeRepository = ReturnType<typeof createWorktreeRepository>;

export function createWorktreeRepository(db: Db, now: () => number) {
  const s = {
    all: db.prepare<[], Raw>(`SELECT * FROM worktrees ORDER BY created_at, session_key`),
    insert: db.prepare(
      `INSERT INTO worktrees (session_key, path, branch, base, base_commit, repository, state, created_at)
       VALUES (?, ?, ?, ?, ?, ?, 'creating', ?)`,
    ),
    ready: db.prepare(`UPDATE worktrees SET state = 'ready' WHERE session_key = ?`),
    rebased: db.prepare(`UPDATE worktrees SET base_commit = ? WHERE session_key = ?`),
    remove: db.prepare(`DELETE FROM worktrees WHERE session_key = ?`),
  };
  return {
    all: (): WorktreeRow[] => s.all.all().map(toRow),
    /** Before `git worktree add`: a crash after it leaves this record for start-up to clean up. */
    creating(sessionKey: string, w: WorktreeInfo): WorktreeRow {
      const createdAt = now();
      s.insert.run(sessionKey, w.path, w.branch, w.base, w.baseCommit, w.repository, createdAt);
      return { ...w, sessionKey, state: 'creating', createdAt };
    },
    ready: (sessionKey: string) => void s.ready.run(sessionKey),
    rebased: (sessionKey: string, baseCommit: string) => void s.rebased.run(baseCommit, sessionKey),
    remove: (sessionKey: string) => void s.remove.run(sessionKey),
  };
}
