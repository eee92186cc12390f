// The session view's Changes tab (issue 26): what the agent changed in its worktree against the
// base — the files (added/modified/deleted/renamed, +/− lines, uncommitted ones marked), one
// file's side-by-side diff (its patch asked for when it is opened), the review being written, and
// the ways to finish.
import { useMemo, useState } from 'react';
import type { ReviewComment, SessionView, WorktreeChanges, WorktreeFile } from '../../../../shared/ipc';
import { useFleet } from '../../stores/fleet';
import { FinishBar } from './FinishBar';
import { ReviewBar } from './ReviewBar';
import { SideBySide } from './SideBySide';
import { useFilePatch } from './useFilePatch';
import { useWorktreeDiff } from './useWorktreeDiff';

const LETTER = { added: 'A', modified: 'M', deleted: 'D', renamed: 'R' } as const;

function FileList({
  diff,
  selected,
  onSelect,
}: {
  diff: WorktreeChanges;
  selected: string | undefined;
  onSelect(path: string): void;
}) {
  const uncommitted = useMemo(() => new Set(diff.uncommitted), [diff.uncommitted]);
  if (diff.files.length === 0) return <p className="pad muted">No changes against the base yet.</p>;
  return (
    <ul className="changes-files" role="listbox" aria-label="Changed files" data-testid="changes-files">
      {diff.files.map((f: WorktreeFile) => (
        <li key={f.path}>
          <button
            type="button"
            role="option"
            aria-selected={f.path === selected}
            className={f.path === selected ? 'changes-file selected' : 'changes-file'}
            data-testid="changes-file"
            data-path={f.path}
            data-status={f.status}
            title={f.oldPath ? `${f.oldPath} → ${f.path}` : f.path}
            onClick={() => onSelect(f.path)}
          >
            <span className={`file-status status-${f.status}`} aria-label={f.status}>
              {LETTER[f.status]}
            </span>
            <span className="changes-path mono">{f.path}</span>
            {uncommitted.has(f.path) && (
              <span className="badge uncommitted" title="Not committed in the worktree yet">
                uncommitted
              </span>
            )}
            <span className="count-add">+{f.additions}</span>
            <span className="count-del">−{f.deletions}</span>
          </button>
        </li>
      ))}
    </ul>
  );
}

function Summary({
  s,
  diff,
  loading,
  onRefresh,
}: {
  s: SessionView;
  diff?: WorktreeChanges;
  loading: boolean;
  onRefresh(): void;
}) {
  const w = s.worktree!;
  const sum = (k: 'additions' | 'deletions') => diff?.files.reduce((n, f) => n + f[k], 0) ?? 0;
  return (
    <div className="changes-summary" data-testid="changes-summary">
      <span className="mono" title={w.path}>
        ⎇ {w.branch}
      </span>
      <span className="muted">
        from {w.base} @ {w.baseCommit.slice(0, 7)}
      </span>
      {diff && (
        <span data-testid="changes-counts">
          {diff.files.length} {diff.files.length === 1 ? 'file' : 'files'}{' '}
          <span className="count-add">+{sum('additions')}</span>{' '}
          <span className="count-del">−{sum('deletions')}</span>
          {' · '}
          {diff.commits} {diff.commits === 1 ? 'commit' : 'commits'} · {diff.uncommitted.length} uncommitted
        </span>
      )}
      <button
        type="button"
        className="quiet changes-refresh"
        data-testid="changes-refresh"
        onClick={onRefresh}
      >
        {loading ? 'Refreshing…' : 'Refresh'}
      </button>
    </div>
  );
}

export function ChangesTab({ sessionKey }: { sessionKey: string }) {
  const s = useFleet((st) => st.sessions[sessionKey]);
  const { diff, error, loading, refresh } = useWorktreeDiff(sessionKey, !!s?.worktree);
  const [picked, setPicked] = useState<string>();
  const [comments, setComments] = useState<ReviewComment[]>([]);
  const selected = diff?.files.find((f) => f.path === picked) ?? diff?.files[0];
  const { file, error: fileError } = useFilePatch(sessionKey, selected, diff);
  if (!s?.worktree)
    return (
      <p className="pad muted" data-testid="changes-none">
        This session has no worktree of its own (it works in place, or its worktree was discarded or kept):
        there is nothing to compare against.
      </p>
    );
  const changed = () => {
    refresh();
    void useFleet.getState().refreshSession(sessionKey);
  };
  return (
    <div className="changes" data-testid="changes" data-ready={diff ? 'true' : 'false'}>
      <Summary s={s} diff={diff} loading={loading} onRefresh={refresh} />
      <FinishBar s={s} onChanged={changed} />
      {error && (
        <p className="form-error" role="alert" data-testid="changes-error">
          {error}
        </p>
      )}
      <div className="changes-body">
        {diff && <FileList diff={diff} selected={selected?.path} onSelect={setPicked} />}
        <div className="changes-diff">
          {fileError && (
            <p className="form-error" role="alert" data-testid="changes-file-error">
              {fileError}
            </p>
          )}
          {file && (
            <SideBySide
              key={file.path}
              file={file}
              comments={comments.filter((c) => c.path === file.path)}
              onComment={(c) => setComments((all) => [...all, c])}
            />
          )}
        </div>
      </div>
      <ReviewBar
        sessionKey={sessionKey}
        comments={comments}
        onRemove={(i) => setComments((all) => all.filter((_, j) => j !== i))}
        onSent={() => setComments([])}
      />
    </div>
  );
}
