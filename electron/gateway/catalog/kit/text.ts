// Text fingerprints for self-echo. The spec compares normalised text (trim, collapse every
// whitespace run to one space). A row can be larger than anything we want to hold in memory, so
// the comparison uses a fingerprint (normalised length + two 32-bit hashes) that can be computed
// incrementally, character by character, and whose running state serialises to a few numbers.

export interface TextPrint {
  /** Normalised length so far. */
  n: number;
  h1: number;
  h2: number;
  /** A whitespace run is pending (emitted as one space before the next visible character). */
  pend: boolean;
}

export function newPrint(): TextPrint {
  return { n: 0, h1: 0, h2: 0x811c9dc5, pend: false };
}

function isSpace(c: number): boolean {
  if (c > 32 && c < 127) return false;
  if (c === 32 || (c >= 9 && c <= 13)) return true;
  if (c < 127) return false;
  return /\s/.test(String.fromCharCode(c));
}

function push(p: TextPrint, c: number): void {
  p.n++;
  p.h1 = (Math.imul(p.h1, 31) + c) | 0;
  p.h2 = Math.imul(p.h2 ^ c, 16777619) | 0;
}

/** Feeds raw (not yet normalised) text. */
export function printFeed(p: TextPrint, s: string): void {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (isSpace(c)) {
      if (p.n > 0) p.pend = true;
      continue;
    }
    if (p.pend) {
      push(p, 32);
      p.pend = false;
    }
    push(p, c);
  }
}

/** A separator between two texts of one row (they are joined with a newline). */
export function printSeparate(p: TextPrint): void {
  if (p.n > 0) p.pend = true;
}

export function printKey(p: TextPrint): string {
  return `${p.n}:${p.h1 >>> 0}:${p.h2 >>> 0}`;
}

export function normalizeText(s: string): string {
  return s.trim().replace(/\s+/g, ' ');
}

export function textKey(s: string): string {
  const p = newPrint();
  printFeed(p, s);
  return printKey(p);
}
