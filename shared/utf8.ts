// UTF-8 without TextEncoder: shared/ has neither DOM nor Node types, and both sides need the
// exact same bytes for notice context keys.

export function utf8Encode(s: string): number[] {
  const out: number[] = [];
  for (const ch of s) {
    let cp = ch.codePointAt(0)!;
    if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd; // lone surrogate, as TextEncoder does
    if (cp < 0x80) out.push(cp);
    else if (cp < 0x800) out.push(0xc0 | (cp >> 6), 0x80 | (cp & 63));
    else if (cp < 0x10000) out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
    else out.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
  }
  return out;
}

/** Strict decoder: undefined for any malformed, overlong or surrogate sequence. */
export function utf8Decode(bytes: ArrayLike<number>): string | undefined {
  let s = '';
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i]!;
    let need: number;
    let cp: number;
    let min: number;
    if (b < 0x80) [need, cp, min] = [0, b, 0];
    else if (b >= 0xc2 && b < 0xe0) [need, cp, min] = [1, b & 31, 0x80];
    else if (b >= 0xe0 && b < 0xf0) [need, cp, min] = [2, b & 15, 0x800];
    else if (b >= 0xf0 && b < 0xf5) [need, cp, min] = [3, b & 7, 0x10000];
    else return undefined;
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return undefined;
      cp = (cp << 6) | (c & 63);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return undefined;
    s += String.fromCodePoint(cp);
    i += need + 1;
  }
  return s;
}
