// Merge the worktree into its base branch: squash (one commit, with a message the person edits)
// or a merge commit. The gateway refuses, changing nothing, when the base moved in a conflicting
// way; the refusal is shown as it is and a rebase is offered.
import { useState } from 'react';
import type { MergeStrategy, SessionView } from '../../../../shared/ipc';
import { call, errorMessage } from '../../lib/api';
import { sessionTitle } from '../../lib/format';

const defaultMessage = (s: SessionView, strategy: MergeStrategy) =>
  strategy === 'squash'
    ? `${sessionTitle(s)}\n\nSquashed from ${s.worktree!.branch} by Sightline.`
    : `Merge branch '${s.worktree!.branch}'`;

function StrategyChoice({ strategy, pick }: { strategy: MergeStrategy; pick(s: MergeStrategy): void }) {
  return (
    <div className="inline" role="radiogroup" aria-label="How to merge">
      <label>
        <input type="radio" checked={strategy === 'squash'} onChange={() => pick('squash')} /> Squash into one
        commit
      </label>
      <label>
        <input
          type="radio"
          data-testid="merge-strategy-merge"
          checked={strategy === 'merge'}
          onChange={() => pick('merge')}
        />{' '}
        Merge commit (keeps the branch&apos;s commits)
      </label>
    </div>
  );
}

function Refusal({ text, base, onRebase }: { text: string; base: string; onRebase(): void }) {
  return (
    <div className="form-error" role="alert" data-testid="merge-refusal">
      <p>{text}</p>
      {/rebase/i.test(text) && (
        <button type="button" data-testid="merge-offer-rebase" onClick={onRebase}>
          Rebase the worktree onto {base}
        </button>
      )}
    </div>
  );
}

export function MergePanel({
  s,
  onMerged,
  onRebase,
  onClose,
}: {
  s: SessionView;
  onMerged(commit: string): void;
  onRebase(): void;
  onClose(): void;
}) {
  const [strategy, setStrategy] = useState<MergeStrategy>('squash');
  const [message, setMessage] = useState(() => defaultMessage(s, 'squash'));
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<string | null>(null);
  const pick = (next: MergeStrategy) => {
    // A message the person did not touch follows the strategy; an edited one stays.
    if (message === defaultMessage(s, strategy)) setMessage(defaultMessage(s, next));
    setStrategy(next);
  };
  const merge = async () => {
    setBusy(true);
    setRefusal(null);
    try {
      const { commit } = await call('worktrees:merge', { sessionKey: s.key, strategy, message });
      onMerged(commit);
    } catch (err) {
      setRefusal(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  const base = s.worktree!.base;
  return (
    <div className="confirm neutral" role="dialog" aria-label="Merge" data-testid="merge-panel">
      <p>
        <strong>
          Merge {s.worktree!.branch} into {base}
        </strong>
      </p>
      <StrategyChoice strategy={strategy} pick={pick} />
      <label className="small muted" htmlFor="merge-message">
        Commit message
      </label>
      <textarea
        id="merge-message"
        data-testid="merge-message"
        className="mono"
        rows={4}
        maxLength={10_000}
        value={message}
        onChange={(e) => setMessage(e.target.value)}
      />
      <p className="small muted">
        Uncommitted files in the worktree are included. {base} moves; the worktree stays.
      </p>
      {refusal && <Refusal text={refusal} base={base} onRebase={onRebase} />}
      <div className="inline">
        <button
          type="button"
          className="primary"
          data-testid="merge-confirm"
          disabled={busy || !message.trim()}
          onClick={() => void merge()}
        >
          {busy ? 'Merging…' : strategy === 'squash' ? `Squash into ${base}` : `Merge into ${base}`}
        </button>
        <button type="button" disabled={busy} onClick={onClose}>
          Cancel
        </button>
      </div>
    </div>
  );
}
