// A unified diff as `git diff` prints it (the worktrees' patch), read into files and side-by-side
// rows: context lines on both sides, a run of removed lines paired with the run of added lines
// after it. Pure, for the renderer's Changes tab and its tests. Text the patch carries is shown,
// never run: it came from files an agent wrote.

export interface SideCell {
  no: number;
  text: string;
  kind: 'same' | 'del' | 'add';
}

/** One row of a side-by-side diff: the old line (left), the new line (right), or both. */
export interface SideRow {
  old?: SideCell;
  new?: SideCell;
}

export interface PatchHunk {
  header: string;
  rows: SideRow[];
}

export interface PatchFile {
  path: string;
  oldPath?: string;
  binary: boolean;
  hunks: PatchHunk[];
}

const C_ESCAPES: Record<string, string> = { n: '\n', t: '\t', '"': '"', '\\': '\\', a: '\x07', b: '\b' };

/** git's C-style quoting of an unusual path ("a/tab\there"), undone; octal escapes are UTF-8 bytes. */
export function unquotePath(raw: string): string {
  if (!raw.startsWith('"') || !raw.endsWith('"') || raw.length < 2) return raw;
  // Built as percent-encoding (each octal escape one byte), decoded once as UTF-8.
  let encoded = '';
  const body = raw.slice(1, -1);
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    if (ch !== '\\') {
      encoded += encodeURIComponent(ch);
      continue;
    }
    const next = body[++i] ?? '';
    if (/[0-7]/.test(next)) {
      encoded += `%${parseInt(body.slice(i, i + 3), 8)
        .toString(16)
        .padStart(2, '0')}`;
      i += 2;
    } else encoded += encodeURIComponent(C_ESCAPES[next] ?? next);
  }
  try {
    return decodeURIComponent(encoded);
  } catch {
    return raw; // not valid UTF-8: the quoted form is still a readable name
  }
}

/** `a/x` or `b/x` (maybe quoted) → `x`; `/dev/null` → undefined. */
function side(raw: string): string | undefined {
  const p = unquotePath(raw.trim());
  if (p === '/dev/null') return undefined;
  return p.replace(/^[ab]\//, '');
}

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/** Pairs the removed lines waiting in `dels` with added ones as they come, row by row. */
class HunkBuilder {
  rows: SideRow[] = [];
  private pending: SideRow[] = [];
  private paired = 0;
  constructor(
    private oldNo: number,
    private newNo: number,
    /** Lines still to come on each side: the header's counts (a line "--- x" inside is content). */
    private oldLeft: number,
    private newLeft: number,
  ) {}
  get open(): boolean {
    return this.oldLeft > 0 || this.newLeft > 0;
  }
  line(kind: string, text: string): void {
    if (kind !== '+') this.oldLeft--;
    if (kind !== '-') this.newLeft--;
    if (kind === '-') {
      if (this.paired > 0) this.flush();
      const row = { old: { no: this.oldNo++, text, kind: 'del' as const } };
      this.pending.push(row);
      this.rows.push(row);
    } else if (kind === '+') {
      const cell = { no: this.newNo++, text, kind: 'add' as const };
      const row = this.pending[this.paired];
      if (row) {
        row.new = cell;
        this.paired++;
      } else this.rows.push({ new: cell });
    } else if (kind === ' ') {
      this.flush();
      this.rows.push({
        old: { no: this.oldNo++, text, kind: 'same' },
        new: { no: this.newNo++, text, kind: 'same' },
      });
    }
  }
  flush(): void {
    this.pending = [];
    this.paired = 0;
  }
}

/** Reads one file's section (from its `diff --git` line to the next). */
function readFile(lines: string[]): PatchFile {
  const file: PatchFile = { path: '', binary: false, hunks: [] };
  let from: string | undefined;
  let to: string | undefined;
  let hunk: HunkBuilder | undefined;
  for (const line of lines) {
    if (line.startsWith('\\')) continue; // "\ No newline at end of file"
    if (hunk?.open && /^[-+ ]/.test(line)) {
      hunk.line(line[0]!, line.slice(1));
      continue;
    }
    const h = HUNK.exec(line);
    if (h) {
      const count = (n: string | undefined) => (n === undefined ? 1 : Number(n));
      hunk = new HunkBuilder(Number(h[1]), Number(h[3]), count(h[2]), count(h[4]));
      file.hunks.push({ header: line, rows: hunk.rows });
    } else if (line.startsWith('--- ')) from = side(line.slice(4));
    else if (line.startsWith('+++ ')) to = side(line.slice(4));
    else if (line.startsWith('rename from ')) from = unquotePath(line.slice(12));
    else if (line.startsWith('rename to ')) to = unquotePath(line.slice(10));
    else if (line.startsWith('Binary files ')) file.binary = true;
  }
  const header = /^diff --git (?:"a\/(?:[^"\\]|\\.)*"|a\/\S*) (.+)$/.exec(lines[0] ?? '');
  file.path = to ?? from ?? (header ? side(header[1]!) : undefined) ?? '';
  if (from !== undefined && to !== undefined && from !== to) file.oldPath = from;
  return file;
}

/** The files of a `git diff` patch, in its order. */
export function parsePatch(patch: string): PatchFile[] {
  const files: PatchFile[] = [];
  let current: string[] | undefined;
  for (const line of patch.split('\n')) {
    if (line.startsWith('diff --git ')) {
      if (current) files.push(readFile(current));
      current = [line];
    } else current?.push(line);
  }
  if (current) files.push(readFile(current));
  return files;
}
