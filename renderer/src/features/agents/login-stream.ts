// A login terminal's output on screen once and in order. The gateway keeps the newest output (the
// view's `output`, which ends at offset `end`) and pushes each new chunk with the offset it starts
// at. The screen writes the kept output first, then the chunks: a chunk it has already shown (in
// part) is cut to what is new, and one that starts past what it has shown means pushes were missed
// (a reconnect): then it catches up from a fresh view. Chunks that come before the first view
// wait for it. Offsets count UTF-16 code units, as JavaScript strings do on both sides.
import { LOGIN_INPUT_MAX } from '../../../../shared/ipc/login-terminals';

export interface LoginStream {
  /** The kept output of a view: writes what the screen lacks, then the chunks that waited. */
  catchUp(view: { output: string; end: number }): void;
  /** A pushed chunk. False: chunks were missed; catch up from a fresh view. */
  push(at: number, data: string): boolean;
}

export const NOT_KEPT = '\r\n[earlier output was not kept]\r\n';

export function createLoginStream(write: (data: string) => void): LoginStream {
  let shown: number | undefined;
  const waiting: { at: number; data: string }[] = [];
  const push = (at: number, data: string): boolean => {
    if (shown === undefined) {
      waiting.push({ at, data });
      return true;
    }
    if (at > shown) return false;
    const fresh = data.slice(shown - at);
    if (fresh) write(fresh);
    shown = Math.max(shown, at + data.length);
    return true;
  };
  return {
    catchUp({ output, end }) {
      const start = end - output.length;
      if (shown === undefined || shown < start) {
        if (start > 0) write(NOT_KEPT);
        shown = start;
      }
      if (end > shown) write(output.slice(shown - start));
      shown = Math.max(shown, end);
      for (const c of waiting.splice(0)) push(c.at, c.data);
    },
    push,
  };
}

/**
 * What the person typed or pasted, in pieces the channel takes (at most LOGIN_INPUT_MAX
 * characters), never splitting a surrogate pair.
 */
export function inputPieces(data: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < data.length) {
    let j = Math.min(data.length, i + LOGIN_INPUT_MAX);
    const last = data.charCodeAt(j - 1);
    if (j < data.length && last >= 0xd800 && last <= 0xdbff) j--;
    out.push(data.slice(i, j));
    i = j;
  }
  return out;
}
