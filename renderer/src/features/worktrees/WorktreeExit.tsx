// Archiving or deleting a session that has a worktree first asks what happens to the worktree:
// keep it (nothing on disk changes), discard it (after the confirmation that lists what is lost),
// or merge it first (the Changes tab). Nothing is deleted silently.
import { useState } from 'react';
import type { SessionView } from '../../../../shared/ipc';
import { sessionTitle } from '../../lib/format';
import { useUi } from '../../stores/ui';
import { DiscardPanel } from './DiscardPanel';

export function WorktreeExit({
  s,
  action,
  onProceed,
  onCancel,
}: {
  s: SessionView;
  action: 'archive' | 'delete';
  onProceed(): void;
  onCancel(): void;
}) {
  const [discarding, setDiscarding] = useState(false);
  const w = s.worktree!;
  const stats = s.worktreeStats;
  if (discarding)
    return (
      <DiscardPanel s={s} confirmLabel={`Discard and ${action}`} onDone={onProceed} onClose={onCancel} />
    );
  return (
    <div className="confirm neutral" role="alertdialog" data-testid="worktree-exit" data-action={action}>
      <p>
        <strong>
          {sessionTitle(s)} works in its own worktree: what happens to it when you {action} the session?
        </strong>
      </p>
      <p className="small">
        Branch <span className="mono">{w.branch}</span> in <span className="mono">{w.path}</span>
        {stats && ` · ${stats.files} changed files, ${stats.uncommitted} uncommitted`}
      </p>
      <div className="inline">
        <button type="button" data-testid="worktree-exit-keep" onClick={onProceed}>
          {action === 'archive'
            ? 'Keep the worktree and archive'
            : 'Keep the folder and branch on disk, and delete'}
        </button>
        <button
          type="button"
          className="danger"
          data-testid="worktree-exit-discard"
          onClick={() => setDiscarding(true)}
        >
          Discard the worktree…
        </button>
        <button
          type="button"
          data-testid="worktree-exit-merge"
          onClick={() => {
            useUi.getState().openSession(s.key, 'changes');
            onCancel();
          }}
        >
          Merge it first
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}
