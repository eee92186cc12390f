// One file of a worktree's diff side by side: the base on the left, the worktree on the right.
// A line number is a button: it opens a comment on that line for the review (the new side for
// added and unchanged lines, the old side for removed ones).
import { Fragment, useState } from 'react';
import type { ReviewComment } from '../../../../shared/ipc';
import type { PatchFile, SideCell, SideRow } from '../../../../shared/patch';
import { CommentBox } from './CommentBox';

/** Rows shown before "Show all": a huge file stays responsive. */
export const ROWS_SHOWN = 1500;

type Where = { line: number; side: 'old' | 'new' };

const whereOf = (row: SideRow): Where | undefined =>
  row.new ? { line: row.new.no, side: 'new' } : row.old ? { line: row.old.no, side: 'old' } : undefined;
const same = (a: Where | null, b: Where | undefined) => !!a && !!b && a.line === b.line && a.side === b.side;
const sameComment = (c: ReviewComment, w: Where | undefined) =>
  !!w && c.line === w.line && (c.side ?? 'new') === w.side;

function Cell({ cell, onComment }: { cell?: SideCell; onComment?(): void }) {
  if (!cell)
    return (
      <>
        <td className="sbs-no" />
        <td className="sbs-code empty" />
      </>
    );
  return (
    <>
      <td className="sbs-no">
        {onComment ? (
          <button
            type="button"
            className="line-no"
            data-testid="comment-line"
            data-line={cell.no}
            title="Comment on this line"
            onClick={onComment}
          >
            {cell.no}
          </button>
        ) : (
          cell.no
        )}
      </td>
      <td className={`sbs-code ${cell.kind}`}>{cell.text}</td>
    </>
  );
}

/** The hunks to draw: all of them, or the first `limit` rows' worth. */
function visible(file: PatchFile, limit: number): PatchFile['hunks'] {
  const out: PatchFile['hunks'] = [];
  let left = limit;
  for (const h of file.hunks) {
    if (left <= 0) break;
    out.push(h.rows.length <= left ? h : { header: h.header, rows: h.rows.slice(0, left) });
    left -= h.rows.length;
  }
  return out;
}

interface RowsProps {
  file: PatchFile;
  rows: SideRow[];
  comments: ReviewComment[];
  open: Where | null;
  setOpen(w: Where | null): void;
  onComment(c: ReviewComment): void;
}

function Rows({ file, rows, comments, open, setOpen, onComment }: RowsProps) {
  return rows.map((row, i) => {
    const w = whereOf(row);
    const comment = () => setOpen(w ?? null);
    return (
      <Fragment key={i}>
        <tr className="sbs-row">
          <Cell cell={row.old} {...(row.new ? {} : { onComment: comment })} />
          <Cell cell={row.new} onComment={comment} />
        </tr>
        {comments
          .filter((c) => sameComment(c, w))
          .map((c, ci) => (
            <tr key={`c${ci}`} className="sbs-comment" data-testid="line-comment">
              <td colSpan={4}>
                <strong>Your comment:</strong> {c.text}
              </td>
            </tr>
          ))}
        {w && same(open, w) && (
          <tr>
            <td colSpan={4}>
              <CommentBox
                where={`${file.path}:${w.line}`}
                onAdd={(text) => {
                  onComment({ path: file.path, line: w.line, side: w.side, text });
                  setOpen(null);
                }}
                onCancel={() => setOpen(null)}
              />
            </td>
          </tr>
        )}
      </Fragment>
    );
  });
}

export function SideBySide({
  file,
  comments,
  onComment,
}: {
  file: PatchFile;
  comments: ReviewComment[];
  onComment(c: ReviewComment): void;
}) {
  const [open, setOpen] = useState<Where | null>(null);
  const [all, setAll] = useState(false);
  const total = file.hunks.reduce((n, h) => n + h.rows.length, 0);
  if (file.binary) return <p className="pad muted">A binary file: no line diff.</p>;
  if (total === 0) return <p className="pad muted">No line changes (renamed, or its mode changed).</p>;
  return (
    <div className="sbs-wrap" data-testid="side-by-side" data-path={file.path}>
      <table className="sbs">
        <colgroup>
          <col className="sbs-no" />
          <col />
          <col className="sbs-no" />
          <col />
        </colgroup>
        <tbody>
          {visible(file, all ? Infinity : ROWS_SHOWN).map((h, hi) => (
            <Fragment key={hi}>
              <tr className="sbs-hunk">
                <td colSpan={4}>{h.header}</td>
              </tr>
              <Rows
                file={file}
                rows={h.rows}
                comments={comments}
                open={open}
                setOpen={setOpen}
                onComment={onComment}
              />
            </Fragment>
          ))}
        </tbody>
      </table>
      {!all && total > ROWS_SHOWN && (
        <button type="button" className="link" onClick={() => setAll(true)}>
          Show all {total} lines
        </button>
      )}
    </div>
  );
}
