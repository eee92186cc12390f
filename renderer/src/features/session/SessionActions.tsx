// A session's lifecycle: archive (hidden from the fleet tree, nothing deleted), reset and delete.
// Reset and delete ask first and say exactly what goes, counted by the gateway (sessions:impact);
// each then goes through the gateway's own rules (reset drops the cursors the session holds;
// delete cleans both sides).
import { useState } from 'react';
import type { SessionImpact, SessionView } from '../../../../shared/ipc';
import { call, errorMessage } from '../../lib/api';
import { sessionTitle } from '../../lib/format';
import { useTranscript } from '../../stores/transcript';
import { useUi } from '../../stores/ui';
import { WorktreeExit } from '../worktrees/WorktreeExit';

type Asking = { action: 'reset' | 'delete'; impact: SessionImpact } | null;

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function ResetText({ s, impact }: { s: SessionView; impact: SessionImpact }) {
  return (
    <>
      <p>
        <strong>Reset {sessionTitle(s)}?</strong> This goes:
      </p>
      <ul>
        <li>its transcript ({plural(impact.messages, 'message')})</li>
        <li>
          the cursors it holds as a watcher ({plural(impact.cursorsHeld, 'cursor')}): it stops being told
          about the sessions it watched
        </li>
        {s.kind === 'acp' && <li>its ACP agent&apos;s conversation (the agent starts afresh)</li>}
      </ul>
      <p className="small muted">Its signal log, runs, goal and the sessions watching it stay.</p>
    </>
  );
}

function DeleteText({ s, impact }: { s: SessionView; impact: SessionImpact }) {
  return (
    <>
      <p>
        <strong>Delete {sessionTitle(s)}?</strong> This cannot be undone. This goes:
      </p>
      <ul>
        <li>
          its transcript ({plural(impact.messages, 'message')}) and its runs ({impact.runs})
        </li>
        <li>the cursors it holds ({impact.cursorsHeld})</li>
        <li>
          the cursors on it ({impact.cursorsOn}): {plural(impact.cursorsOn, 'watcher')} stop watching it
        </li>
        {impact.upstreamLink && (
          <li>
            its upstream link: Sightline stops following the tool&apos;s transcript (the tool&apos;s own files
            stay)
          </li>
        )}
        {impact.children > 0 && <li>the parent link of its {plural(impact.children, 'child session')}</li>}
      </ul>
      <p className="small muted">Its signal log rows stay until pruned, so state versions never go back.</p>
    </>
  );
}

/** Archive (or Unarchive), Reset… and Delete… (the main session cannot be deleted). */
function ActionButtons({
  s,
  onArchive,
  onReset,
  onDelete,
}: {
  s: SessionView;
  onArchive(): void;
  onReset(): void;
  onDelete(): void;
}) {
  return (
    <div className="session-actions">
      <button
        type="button"
        data-testid="session-archive"
        onClick={onArchive}
        title={
          s.archived ? 'Show it in the fleet tree again' : 'Hide it from the fleet tree; nothing is deleted'
        }
      >
        {s.archived ? 'Unarchive' : 'Archive'}
      </button>
      <button type="button" data-testid="session-reset" onClick={onReset}>
        Reset…
      </button>
      {s.kind !== 'main' && (
        <button type="button" className="danger" data-testid="session-delete" onClick={onDelete}>
          Delete…
        </button>
      )}
    </div>
  );
}

/** What a reset or delete takes away, and the button that does it. */
function ConfirmPanel({
  s,
  asking,
  busy,
  onConfirm,
  onKeep,
}: {
  s: SessionView;
  asking: NonNullable<Asking>;
  busy: boolean;
  onConfirm(): void;
  onKeep(): void;
}) {
  return (
    <div className="confirm" role="alertdialog" data-testid={`confirm-${asking.action}`}>
      {asking.action === 'reset' ? (
        <ResetText s={s} impact={asking.impact} />
      ) : (
        <DeleteText s={s} impact={asking.impact} />
      )}
      <div className="inline">
        <button
          type="button"
          className="danger"
          data-testid={`confirm-${asking.action}-yes`}
          disabled={busy}
          onClick={onConfirm}
        >
          {asking.action === 'reset' ? 'Reset' : 'Delete'} {sessionTitle(s)}
        </button>
        <button type="button" disabled={busy} onClick={onKeep}>
          Keep it
        </button>
      </div>
    </div>
  );
}

export function SessionActions({ s }: { s: SessionView }) {
  const setError = useUi((st) => st.setError);
  const [asking, setAsking] = useState<Asking>(null);
  const [busy, setBusy] = useState(false);
  // A session with a worktree asks what happens to it first (issue 26).
  const [exit, setExit] = useState<'archive' | 'delete' | null>(null);
  const fail = (err: unknown) => setError(errorMessage(err));
  const archive = () => call('sessions:archive', { sessionKey: s.key, archived: !s.archived }).catch(fail);

  const ask = (action: 'reset' | 'delete') =>
    call('sessions:impact', { sessionKey: s.key }).then((impact) => setAsking({ action, impact }), fail);

  const confirm = async () => {
    if (!asking) return;
    setBusy(true);
    try {
      if (asking.action === 'reset') {
        await call('sessions:reset', { sessionKey: s.key });
        await useTranscript.getState().open(s.key);
        setAsking(null);
      } else {
        await call('sessions:delete', { sessionKey: s.key });
        useUi.setState({ selectedKey: null });
      }
    } catch (err) {
      fail(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="session-actions-bar">
      <ActionButtons
        s={s}
        onArchive={() => (s.worktree && !s.archived ? setExit('archive') : void archive())}
        onReset={() => void ask('reset')}
        onDelete={() => (s.worktree ? setExit('delete') : void ask('delete'))}
      />
      {exit && (
        <WorktreeExit
          s={s}
          action={exit}
          onCancel={() => setExit(null)}
          onProceed={() => {
            setExit(null);
            if (exit === 'archive') void archive();
            else void ask('delete');
          }}
        />
      )}
      {asking && (
        <ConfirmPanel
          s={s}
          asking={asking}
          busy={busy}
          onConfirm={() => void confirm()}
          onKeep={() => setAsking(null)}
        />
      )}
    </div>
  );
}
