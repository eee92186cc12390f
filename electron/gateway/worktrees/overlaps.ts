// Overlap awareness: live sessions whose worktrees of one repository change the same file. The
// file lists come from each worktree's last diff (kept by the service), so this is a join in
// memory, no git.
import type { WorktreeOverlap } from '../../../shared/ipc/worktrees';

export interface ChangedFiles {
  sessionKey: string;
  repository: string;
  /** Paths changed against the base (a rename counts under both names). */
  paths: readonly string[];
}

export function findOverlaps(worktrees: readonly ChangedFiles[]): WorktreeOverlap[] {
  const byFile = new Map<string, { repository: string; path: string; keys: Set<string> }>();
  for (const w of worktrees) {
    for (const p of w.paths) {
      const id = `${w.repository}\0${p}`;
      let entry = byFile.get(id);
      if (!entry) byFile.set(id, (entry = { repository: w.repository, path: p, keys: new Set() }));
      entry.keys.add(w.sessionKey);
    }
  }
  const out: WorktreeOverlap[] = [];
  for (const e of byFile.values())
    if (e.keys.size > 1)
      out.push({ repository: e.repository, path: e.path, sessionKeys: [...e.keys].sort() });
  return out.sort((a, b) => (a.repository + a.path < b.repository + b.path ? -1 : 1));
}

/** The line a watcher reads in its next notice: which sessions change which files. */
export function overlapNotice(
  sessionKeys: readonly string[],
  paths: readonly string[],
  repository: string,
): string {
  const shown = paths.slice(0, 10).join(', ') + (paths.length > 10 ? ` and ${paths.length - 10} more` : '');
  return `Worktrees overlap: sessions ${sessionKeys.map((k) => `"${k}"`).join(' and ')} both change ${shown} in ${repository}.`;
}
