// A fleet row's worktree: its branch and the +/− counts of its last diff; marked when another
// live session's worktree of the same repository changes the same files (the Inbox says which).
import type { SessionView } from '../../../../shared/ipc';
import { useInbox } from '../../stores/inbox';

export function WorktreeBadge({ s }: { s: SessionView }) {
  const overlapping = useInbox((st) =>
    st.items.some((i) => i.type === 'worktree_overlap' && i.sessionKeys.includes(s.key)),
  );
  const w = s.worktreeStats;
  if (!w) return null;
  const title = [
    `worktree branch ${w.branch}`,
    `${w.files} changed ${w.files === 1 ? 'file' : 'files'}, ${w.uncommitted} uncommitted`,
    w.missing ? 'its folder is gone (deleted by hand?)' : '',
    overlapping ? 'another session’s worktree changes the same files (see the Inbox)' : '',
  ]
    .filter(Boolean)
    .join('\n');
  return (
    <span
      className={`badge worktree${overlapping ? ' overlap' : ''}`}
      data-testid="row-worktree"
      data-branch={w.branch}
      data-overlap={overlapping ? 'true' : 'false'}
      title={title}
    >
      {/* Monospace, as everywhere a branch is named: a branch's width is its length, not its letters. */}
      {overlapping && '⚠ '}⎇ <span className="mono">{w.branch.replace(/^sightline\//, '')}</span>{' '}
      <span className="count-add">+{w.additions}</span> <span className="count-del">−{w.deletions}</span>
      {w.missing && ' (folder gone)'}
    </span>
  );
}
