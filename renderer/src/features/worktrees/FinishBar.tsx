// Finishing a worktree: merge into the base, rebase onto it, discard it, or keep it (Sightline
// stops tracking it; its folder and branch stay on disk). Each asks first and says what happens.
import { useState } from 'react';
import type { SessionView } from '../../../../shared/ipc';
import { call, errorMessage } from '../../lib/api';
import { useUi } from '../../stores/ui';
import { DiscardPanel } from './DiscardPanel';
import { MergePanel } from './MergePanel';

type Panel = 'merge' | 'discard' | 'keep' | null;

function KeepPanel({ s, onClose }: { s: SessionView; onClose(): void }) {
  const setError = useUi((st) => st.setError);
  const keep = () =>
    call('worktrees:keep', { sessionKey: s.key }).then(onClose, (err: unknown) =>
      setError(errorMessage(err)),
    );
  return (
    <div className="confirm neutral" role="dialog" aria-label="Keep the worktree" data-testid="keep-panel">
      <p>
        <strong>Keep the worktree as it is?</strong> Sightline stops tracking it: the folder{' '}
        <span className="mono">{s.worktree!.path}</span> and the branch{' '}
        <span className="mono">{s.worktree!.branch}</span> stay on disk for you to use with git.
      </p>
      <div className="inline">
        <button type="button" className="primary" data-testid="keep-confirm" onClick={() => void keep()}>
          Keep it on disk
        </button>
        <button type="button" onClick={onClose}>
          Cancel
        </button>
      </div>
    </div>
  );
}

function FinishButtons({
  base,
  rebasing,
  toggle,
  rebase,
}: {
  base: string;
  rebasing: boolean;
  toggle(p: Panel): void;
  rebase(): void;
}) {
  return (
    <div className="inline">
      <button type="button" className="primary" data-testid="worktree-merge" onClick={() => toggle('merge')}>
        Merge…
      </button>
      <button
        type="button"
        data-testid="worktree-rebase"
        disabled={rebasing}
        title={`Replay the worktree's commits onto the tip of ${base}`}
        onClick={rebase}
      >
        {rebasing ? 'Rebasing…' : `Rebase onto ${base}`}
      </button>
      <button
        type="button"
        className="danger"
        data-testid="worktree-discard"
        onClick={() => toggle('discard')}
      >
        Discard…
      </button>
      <button type="button" data-testid="worktree-keep" onClick={() => toggle('keep')}>
        Keep…
      </button>
    </div>
  );
}

export function FinishBar({ s, onChanged }: { s: SessionView; onChanged(): void }) {
  const [panel, setPanel] = useState<Panel>(null);
  const [note, setNote] = useState<{ ok: boolean; text: string } | null>(null);
  const [rebasing, setRebasing] = useState(false);
  const w = s.worktree!;
  const rebase = async () => {
    setRebasing(true);
    try {
      const { baseCommit } = await call('worktrees:rebase', { sessionKey: s.key });
      setNote({ ok: true, text: `Rebased onto ${w.base} (${baseCommit.slice(0, 7)}).` });
      setPanel(null);
      onChanged();
    } catch (err) {
      setNote({ ok: false, text: errorMessage(err) });
    } finally {
      setRebasing(false);
    }
  };
  const toggle = (p: Panel) => {
    setNote(null);
    setPanel(panel === p ? null : p);
  };
  return (
    <div className="finish-bar" data-testid="finish-bar">
      <FinishButtons base={w.base} rebasing={rebasing} toggle={toggle} rebase={() => void rebase()} />
      {note && (
        <p className={note.ok ? 'field-note ok' : 'form-error'} role="status" data-testid="finish-note">
          {note.text}
        </p>
      )}
      {panel === 'merge' && (
        <MergePanel
          s={s}
          onMerged={(commit) => {
            setNote({
              ok: true,
              text: `Merged into ${w.base} as ${commit.slice(0, 7)}. The worktree stays until you discard or keep it.`,
            });
            setPanel(null);
            onChanged();
          }}
          onRebase={() => void rebase()}
          onClose={() => setPanel(null)}
        />
      )}
      {panel === 'discard' && (
        <DiscardPanel s={s} onDone={() => setPanel(null)} onClose={() => setPanel(null)} />
      )}
      {panel === 'keep' && <KeepPanel s={s} onClose={() => setPanel(null)} />}
    </div>
  );
}
