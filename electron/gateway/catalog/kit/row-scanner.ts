// A streaming JSON scanner for rows larger than the monitor's read window. It keeps only what a
// classifier needs (a few scalar fields, bounded string prefixes, the types of content blocks and a
// fingerprint of the row's text), so a 3 MiB row is classified across several checks with a few
// kilobytes of state. The state is plain JSON: it is persisted on the upstream link between checks.
// About 300 lines on purpose: one tokenizer state machine, which splits badly.
import { newPrint, printFeed, printSeparate, type TextPrint } from './text';

export type PathSeg = string | number;
export type Path = readonly PathSeg[];

export interface ScanSpec {
  /** Scalars to keep (strings keep their first CAPTURE_CHARS characters). */
  capture(path: Path): boolean;
  /** Strings whose content forms the row's text (joined like the classifier joins them). */
  text(path: Path): boolean;
}

interface Frame {
  /** 0 object, 1 array. */
  t: 0 | 1;
  k: string | null;
  i: number;
}

interface StrState {
  key: boolean;
  esc: number;
  hex: string;
  buf: string;
  cap: boolean;
  text: boolean;
}

export interface ScanState {
  mode: Mode;
  stack: Frame[];
  str: StrState | null;
  lit: string;
  caps: [PathSeg[], unknown][];
  extra: number;
  /** Characters of captured strings so far (bounded by CAPTURE_BUDGET). */
  held: number;
  print: TextPrint;
  bad: boolean;
}

const enum Mode {
  Value = 0,
  ValueOrEnd = 1,
  KeyOrEnd = 2,
  Key = 3,
  Colon = 4,
  After = 5,
  Str = 6,
  Lit = 7,
  Done = 8,
}

/** Deeper nesting marks the row malformed (no real transcript row nests this deep). */
const MAX_DEPTH = 256;
const MAX_CAPS = 256;
const MAX_EXTRA = 16;
export const CAPTURE_CHARS = 2048;
/** All captured strings of one row together; the classifiers only read prefixes. */
export const CAPTURE_BUDGET = 16 * 1024;

export function newScan(): ScanState {
  return {
    mode: Mode.Value,
    stack: [],
    str: null,
    lit: '',
    caps: [],
    extra: 0,
    held: 0,
    print: newPrint(),
    bad: false,
  };
}

function isWs(c: string): boolean {
  return c === ' ' || c === '\n' || c === '\r' || c === '\t';
}

function currentPath(st: ScanState): PathSeg[] {
  const p: PathSeg[] = [];
  for (const f of st.stack) p.push(f.t === 0 ? (f.k ?? '') : f.i);
  return p;
}

function capture(st: ScanState, path: PathSeg[], value: unknown): void {
  if (st.caps.length < MAX_CAPS) {
    st.caps.push([path, value]);
    return;
  }
  // Past the bound only a new block type is kept (e.g. a tool_result after hundreds of blocks).
  const last = path[path.length - 1];
  if (last !== 'type' || st.extra >= MAX_EXTRA) return;
  const shape = path.map((s) => (typeof s === 'number' ? '#' : s)).join('\u001f');
  const seen = st.caps.some(
    ([p, v]) => v === value && p.map((s) => (typeof s === 'number' ? '#' : s)).join('\u001f') === shape,
  );
  if (!seen) {
    st.caps.push([path, value]);
    st.extra++;
  }
}

function valueDone(st: ScanState, spec: ScanSpec, value: unknown, scalar: boolean): void {
  if (scalar) {
    const path = currentPath(st);
    if (spec.capture(path)) capture(st, path, value);
  }
  st.mode = st.stack.length === 0 ? Mode.Done : Mode.After;
}

function openContainer(st: ScanState, t: 0 | 1): void {
  if (st.stack.length >= MAX_DEPTH) st.bad = true;
  else st.stack.push({ t, k: null, i: 0 });
  st.mode = t === 0 ? Mode.KeyOrEnd : Mode.ValueOrEnd;
}

function closeContainer(st: ScanState, spec: ScanSpec, t: 0 | 1): void {
  const top = st.stack[st.stack.length - 1];
  if (!top || top.t !== t) {
    st.bad = true;
    return;
  }
  st.stack.pop();
  valueDone(st, spec, undefined, false);
}

function finishLiteral(st: ScanState, spec: ScanSpec): void {
  const l = st.lit;
  st.lit = '';
  let v: unknown;
  if (l === 'true') v = true;
  else if (l === 'false') v = false;
  else if (l === 'null') v = null;
  else if (/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(l)) v = Number(l);
  else {
    st.bad = true;
    return;
  }
  valueDone(st, spec, v, true);
}

function startString(st: ScanState, spec: ScanSpec, key: boolean): void {
  let cap = false;
  let text = false;
  if (!key) {
    const path = currentPath(st);
    cap = spec.capture(path);
    text = spec.text(path);
    if (text) printSeparate(st.print);
  }
  st.str = { key, esc: 0, hex: '', buf: '', cap, text };
  st.mode = Mode.Str;
}

function strChar(st: ScanState, s: StrState, ch: string): void {
  if (s.key) {
    if (s.buf.length < 256) s.buf += ch;
    return;
  }
  // Short fields (types, roles, flags) are always kept whole; long texts share the budget.
  if (s.cap && s.buf.length < CAPTURE_CHARS && (s.buf.length < 64 || st.held < CAPTURE_BUDGET)) {
    s.buf += ch;
    st.held++;
  }
  if (s.text) printFeed(st.print, ch);
}

const ESCAPES: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

function endString(st: ScanState, spec: ScanSpec, s: StrState): void {
  st.str = null;
  if (s.key) {
    const top = st.stack[st.stack.length - 1];
    if (top) top.k = s.buf;
    st.mode = Mode.Colon;
    return;
  }
  if (s.cap) capture(st, currentPath(st), s.buf);
  st.mode = st.stack.length === 0 ? Mode.Done : Mode.After;
}

/** Feeds decoded text of the row (never containing the row's terminating newline). */
export function scanFeed(st: ScanState, spec: ScanSpec, chunk: string): void {
  for (let i = 0; i < chunk.length && !st.bad; i++) {
    const ch = chunk[i]!;
    switch (st.mode) {
      case Mode.Str: {
        const s = st.str!;
        if (s.esc === 1) {
          if (ch === 'u') {
            s.esc = 2;
            s.hex = '';
          } else if (ch in ESCAPES) {
            s.esc = 0;
            strChar(st, s, ESCAPES[ch]!);
          } else st.bad = true;
        } else if (s.esc === 2) {
          s.hex += ch;
          if (s.hex.length === 4) {
            if (!/^[0-9a-fA-F]{4}$/.test(s.hex)) st.bad = true;
            else strChar(st, s, String.fromCharCode(parseInt(s.hex, 16)));
            s.esc = 0;
          }
        } else if (ch === '\\') s.esc = 1;
        else if (ch === '"') endString(st, spec, s);
        else strChar(st, s, ch);
        break;
      }
      case Mode.Lit:
        if (/[0-9a-zA-Z+\-.]/.test(ch)) {
          if (st.lit.length < 64) st.lit += ch;
          else st.bad = true;
        } else {
          finishLiteral(st, spec);
          i--;
        }
        break;
      case Mode.Value:
      case Mode.ValueOrEnd:
        if (isWs(ch)) break;
        if (st.mode === Mode.ValueOrEnd && ch === ']') closeContainer(st, spec, 1);
        else if (ch === '{') openContainer(st, 0);
        else if (ch === '[') openContainer(st, 1);
        else if (ch === '"') startString(st, spec, false);
        else if (/[-0-9tfn]/.test(ch)) {
          st.mode = Mode.Lit;
          st.lit = ch;
        } else st.bad = true;
        break;
      case Mode.KeyOrEnd:
      case Mode.Key:
        if (isWs(ch)) break;
        if (st.mode === Mode.KeyOrEnd && ch === '}') closeContainer(st, spec, 0);
        else if (ch === '"') startString(st, spec, true);
        else st.bad = true;
        break;
      case Mode.Colon:
        if (isWs(ch)) break;
        if (ch === ':') st.mode = Mode.Value;
        else st.bad = true;
        break;
      case Mode.After: {
        if (isWs(ch)) break;
        const top = st.stack[st.stack.length - 1];
        if (ch === ',') {
          if (top?.t === 0) st.mode = Mode.Key;
          else if (top?.t === 1) {
            top.i++;
            st.mode = Mode.Value;
          } else st.bad = true;
        } else if (ch === '}') closeContainer(st, spec, 0);
        else if (ch === ']') closeContainer(st, spec, 1);
        else st.bad = true;
        break;
      }
      case Mode.Done:
        if (!isWs(ch)) st.bad = true;
        break;
    }
  }
}

export interface ScanResult {
  /** The row's skeleton (captured fields only), or undefined when the row is not valid JSON. */
  row: Record<string, unknown> | undefined;
  print: TextPrint;
}

/** Ends the row (its newline was seen) and builds the skeleton the classifiers read. */
export function scanFinish(st: ScanState, spec: ScanSpec): ScanResult {
  if (!st.bad && st.mode === Mode.Lit) finishLiteral(st, spec);
  if (st.bad || st.mode !== Mode.Done) return { row: undefined, print: st.print };
  const root: Record<string, unknown> = {};
  for (const [path, value] of st.caps) {
    let node: Record<string | number, unknown> = root;
    for (let i = 0; i < path.length; i++) {
      const seg = path[i]!;
      if (i === path.length - 1) {
        node[seg] = value;
        break;
      }
      let next = node[seg];
      if (typeof next !== 'object' || next === null) {
        next = typeof path[i + 1] === 'number' ? [] : {};
        node[seg] = next;
      }
      node = next as Record<string | number, unknown>;
    }
  }
  return { row: root, print: st.print };
}
