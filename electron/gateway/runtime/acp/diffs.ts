// What an ACP agent changed, for the transcript: the `diff` content of its tool calls, kept until
// the tool call's transcript entry is written (an agent may send the diff with an in-progress
// update and finish the call later), with paths made relative to the session's folder and each
// side bounded.
import fs from 'node:fs';
import path from 'node:path';
import type { FileDiff } from '../../types';
import type { AcpDiff } from './types';

/** The most of each side of a diff a transcript keeps. */
export const MAX_DIFF_TEXT = 256 * 1024;
/** Tool calls whose diffs wait for their transcript entry. */
const MAX_PENDING = 64;

function relativeTo(root: string, file: string): string {
  const rel = path.relative(root, file);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel.split(path.sep).join('/') : file;
}

export class DiffCollector {
  private readonly pending = new Map<string, Map<string, AcpDiff>>();
  private root: string | undefined;

  /** `folder`: the session's working folder (agents report real, absolute paths). */
  constructor(private readonly folder: string) {}

  /** Keeps the call's diffs; a later diff of the same file replaces the earlier one. */
  add(toolCallId: string, diffs: AcpDiff[] | undefined): void {
    if (!diffs?.length) return;
    let byPath = this.pending.get(toolCallId);
    if (!byPath) {
      if (this.pending.size >= MAX_PENDING) this.pending.delete(this.pending.keys().next().value!);
      this.pending.set(toolCallId, (byPath = new Map()));
    }
    for (const d of diffs) byPath.set(d.path, d);
  }

  /** The call's diffs for its transcript entry (then forgotten). */
  take(toolCallId: string): FileDiff[] | undefined {
    const byPath = this.pending.get(toolCallId);
    if (!byPath) return undefined;
    this.pending.delete(toolCallId);
    this.root ??= realOrSame(this.folder);
    return [...byPath.values()].map((d) => {
      const cut = (t: string) => (t.length > MAX_DIFF_TEXT ? t.slice(0, MAX_DIFF_TEXT) : t);
      const truncated = d.newText.length > MAX_DIFF_TEXT || (d.oldText?.length ?? 0) > MAX_DIFF_TEXT;
      return {
        path: relativeTo(this.root!, d.path),
        oldText: d.oldText === null ? null : cut(d.oldText),
        newText: cut(d.newText),
        ...(truncated ? { truncated: true } : {}),
      };
    });
  }
}

function realOrSame(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}
