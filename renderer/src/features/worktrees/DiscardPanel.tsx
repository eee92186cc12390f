// Discard: remove the worktree's folder and its branch. The confirmation first lists what is lost,
// as the gateway counts it (worktrees:impact): uncommitted files, commits not merged, changed files.
import { useEffect, useState } from 'react';
import type { SessionView, WorktreeImpact } from '../../../../shared/ipc';
import { call, errorMessage } from '../../lib/api';

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const SHOWN = 12;

function Lost({ impact }: { impact: WorktreeImpact }) {
  if (impact.missing)
    return (
      <p>
        The folder {impact.path} is already gone; only the branch {impact.branch} remains to remove.
      </p>
    );
  const names = impact.uncommitted.slice(0, SHOWN).join(', ');
  const more = impact.uncommitted.length > SHOWN ? ` and ${impact.uncommitted.length - SHOWN} more` : '';
  return (
    <ul data-testid="discard-lost">
      <li data-testid="discard-uncommitted">
        {plural(impact.uncommitted.length, 'uncommitted file')}
        {impact.uncommitted.length > 0 && `: ${names}${more}`}
      </li>
      <li data-testid="discard-commits">
        {plural(impact.commits, 'commit')} on {impact.branch} not merged
      </li>
      <li>{plural(impact.files.length, 'changed file')} against the base in all</li>
      <li className="mono small">{impact.path}</li>
    </ul>
  );
}

export function DiscardPanel({
  s,
  confirmLabel = 'Discard worktree and branch',
  onDone,
  onClose,
}: {
  s: SessionView;
  confirmLabel?: string;
  onDone(): void;
  onClose(): void;
}) {
  const [impact, setImpact] = useState<WorktreeImpact | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    let live = true;
    call('worktrees:impact', { sessionKey: s.key }).then(
      (i) => live && setImpact(i),
      (err: unknown) => live && setError(errorMessage(err)),
    );
    return () => {
      live = false;
    };
  }, [s.key]);
  const discard = async () => {
    setBusy(true);
    try {
      await call('worktrees:discard', { sessionKey: s.key });
      onDone();
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="confirm" role="alertdialog" aria-label="Discard the worktree" data-testid="discard-panel">
      <p>
        <strong>Discard the worktree {s.worktree?.branch}?</strong> Its folder and branch are removed; this
        cannot be undone. This is lost:
      </p>
      {impact ? <Lost impact={impact} /> : !error && <p className="muted">Counting what would be lost…</p>}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <div className="inline">
        <button
          type="button"
          className="danger"
          data-testid="discard-confirm"
          disabled={busy || !impact}
          onClick={() => void discard()}
        >
          {confirmLabel}
        </button>
        <button type="button" disabled={busy} onClick={onClose}>
          Cancel
        </button>
      </div>
    </div>
  );
}
