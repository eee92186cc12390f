// A file an agent changed, as a readable diff: added and removed lines with a little context, the
// file's path relative to the session's folder, collapsed beyond a screenful.
import { useMemo, useState } from 'react';
import type { FileDiff } from '../../../../shared/ipc';
import { lineDiff, splitLines } from '../../../../shared/diff';

/** Diff lines shown before "Show all". */
export const SCREENFUL = 40;

export function DiffView({ diff }: { diff: FileDiff }) {
  const [open, setOpen] = useState(false);
  const d = useMemo(() => lineDiff(diff.oldText ?? '', diff.newText), [diff]);
  const created = diff.oldText === null;
  const shown = d ? (open ? d.lines : d.lines.slice(0, SCREENFUL)) : [];
  return (
    <div className="diff" data-testid="diff" data-path={diff.path}>
      <div className="diff-head">
        <span className="mono" data-testid="diff-path">
          {diff.path}
          {created && <span className="muted"> (new file)</span>}
        </span>
        {d ? (
          <span className="small" data-testid="diff-counts">
            <span className="count-add">+{d.added}</span> <span className="count-del">−{d.removed}</span>
          </span>
        ) : (
          <span className="small muted">
            too large to diff line by line ({splitLines(diff.newText).length} lines now)
          </span>
        )}
      </div>
      {d && (
        <pre className="diff-lines">
          {shown.map((l, i) =>
            l.kind === 'gap' ? (
              <span key={i} className="diff-line gap">
                ⋯ {l.skipped} unchanged {l.skipped === 1 ? 'line' : 'lines'}
              </span>
            ) : (
              <span key={i} className={`diff-line ${l.kind}`} data-testid={`diff-${l.kind}`}>
                {l.kind === 'add' ? '+' : l.kind === 'del' ? '-' : ' '} {l.text}
              </span>
            ),
          )}
        </pre>
      )}
      {d && d.lines.length > SCREENFUL && (
        <button type="button" className="link" data-testid="diff-toggle" onClick={() => setOpen(!open)}>
          {open ? 'Collapse' : `Show all ${d.lines.length} lines`}
        </button>
      )}
      {diff.truncated && (
        <p className="small muted">The file was longer than a transcript keeps; its end is cut.</p>
      )}
    </div>
  );
}
