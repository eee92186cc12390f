// A line diff for showing what an agent changed in a file: Myers' O((N+M)·D) shortest edit script,
// grouped into hunks with a few lines of context, like `diff -u`. Pure, for the renderer and tests.

export type DiffLine =
  | { kind: 'same' | 'del' | 'add'; text: string; oldNo?: number; newNo?: number }
  | { kind: 'gap'; skipped: number };

export interface LineDiff {
  lines: DiffLine[];
  added: number;
  removed: number;
}

/** Files longer than this (in lines, either side) are not diffed line by line. */
export const MAX_DIFF_LINES = 5000;

export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Beyond this many edits a file is shown as changed without a line-by-line diff. */
export const MAX_EDITS = 2000;

/**
 * Myers' shortest edit script as 'same' | 'del' | 'add' operations, or undefined past MAX_EDITS.
 * Each round's frontier is kept only over its own diagonals, so memory grows with D², not D·(N+M).
 */
function editScript(a: string[], b: string[]): ('same' | 'del' | 'add')[] | undefined {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= Math.min(max, MAX_EDITS); d++) {
    trace.push(v.slice(offset - d, offset + d + 1));
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!)
          ? v[offset + k + 1]!
          : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(trace, n, m, d);
    }
  }
  return undefined;
}

function backtrack(trace: Int32Array[], n: number, m: number, dEnd: number) {
  const ops: ('same' | 'del' | 'add')[] = [];
  let x = n;
  let y = m;
  for (let d = dEnd; d > 0; d--) {
    const v = trace[d]!;
    const at = (k: number) => v[k + d]!;
    const k = x - y;
    const prevK = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push('same');
      x--;
      y--;
    }
    ops.push(x === prevX ? 'add' : 'del');
    x = prevX;
    y = prevY;
  }
  while (x > 0 && y > 0) {
    ops.push('same');
    x--;
    y--;
  }
  return ops.reverse();
}

/**
 * The diff of two texts as unified-diff lines with `context` lines around each change; runs of
 * unchanged lines beyond that become one `gap` line. `undefined` when either side is too long or
 * the texts differ in more than MAX_EDITS lines.
 */
export function lineDiff(oldText: string, newText: string, context = 3): LineDiff | undefined {
  const a = splitLines(oldText);
  const b = splitLines(newText);
  if (a.length > MAX_DIFF_LINES || b.length > MAX_DIFF_LINES) return undefined;
  const all: Exclude<DiffLine, { kind: 'gap' }>[] = [];
  let i = 0;
  let j = 0;
  let added = 0;
  let removed = 0;
  const script = editScript(a, b);
  if (!script) return undefined;
  for (const op of script) {
    if (op === 'same') all.push({ kind: 'same', text: a[i]!, oldNo: ++i, newNo: ++j });
    else if (op === 'del') {
      all.push({ kind: 'del', text: a[i]!, oldNo: ++i });
      removed++;
    } else {
      all.push({ kind: 'add', text: b[j]!, newNo: ++j });
      added++;
    }
  }
  // Keep changed lines and `context` lines around them; fold the rest.
  const keep = all.map((l) => l.kind !== 'same');
  for (let x = 0; x < all.length; x++) {
    if (all[x]!.kind === 'same') continue;
    for (let c = Math.max(0, x - context); c <= Math.min(all.length - 1, x + context); c++) keep[c] = true;
  }
  const lines: DiffLine[] = [];
  let skipped = 0;
  all.forEach((l, x) => {
    if (keep[x]) {
      if (skipped) lines.push({ kind: 'gap', skipped });
      skipped = 0;
      lines.push(l);
    } else skipped++;
  });
  if (skipped && lines.length) lines.push({ kind: 'gap', skipped });
  return { lines, added, removed };
}
