// What every JSONL tool (Claude Code, Codex, Pi) does the same way, from its row rules: the
// baseline at the end of the file, one probe since the marker (kit/jsonl-probe.ts) and the tail
// of the transcript for adoption. The marker lives in the link's four fields: the byte offset,
// the file's inode, a pending oversized row (`scanState`) and the identities of the last counted
// rows (`markerJson`).
import type { MarkerFields, ProbeOutcome, ProviderSource, SourceRef, VisibleMessage } from '../provider';
import { inodeOf, isNotFound, readAt, type CatalogFs } from './fsio';
import { probeJsonl, type JsonlMarker } from './jsonl-probe';
import type { ScanState } from './row-scanner';
import type { RowRules } from './rules';
import { rowsOf } from './windows';

/** How much of the end of a transcript adoption reads for its import. */
export const IMPORT_BYTES = 8 * 1024 * 1024;

export interface JsonlSourceOptions {
  rules: RowRules;
  fs: CatalogFs;
  /** The file is not found under its name: does it live on elsewhere (Codex .zst / archive)? */
  existsElsewhere?(file: string): boolean;
  /** When the plain file is gone: its decompressed size and head (Codex's cold .zst twin). */
  cold?: { size(file: string): number; head(file: string, limit: number): Buffer };
}

export function filePath(ref: SourceRef): string {
  if (ref.kind !== 'file' || typeof ref.path !== 'string') throw new Error('not a transcript file');
  return ref.path;
}

export function toJsonlMarker(m: MarkerFields): JsonlMarker {
  const pend = m.scanState ? (JSON.parse(m.scanState) as { at: number; st: ScanState }) : null;
  const seen = m.markerJson ? (JSON.parse(m.markerJson) as { seen?: string[] }).seen : undefined;
  return { offset: m.offset, ino: m.inode, pend, ...(seen?.length ? { seen } : {}) };
}

export function fromJsonlMarker(m: JsonlMarker): MarkerFields {
  return {
    offset: m.offset,
    inode: m.ino,
    markerJson: m.seen?.length ? JSON.stringify({ seen: m.seen }) : null,
    scanState: m.pend ? JSON.stringify(m.pend) : null,
  };
}

/**
 * An idle outcome when the file is exactly where the marker left it: same inode, size at the
 * marker, no pending oversized row. Anything else (an error included) goes the probe's whole way.
 */
function idleOutcome(cfs: CatalogFs, file: string, m: MarkerFields): ProbeOutcome | undefined {
  if (m.scanState !== null || m.inode === null) return undefined;
  try {
    const st = cfs.statSync(file);
    if (st.size !== m.offset || inodeOf(st) !== m.inode) return undefined;
  } catch {
    return undefined;
  }
  const { offset, inode, markerJson, scanState } = m;
  return {
    kind: 'activity',
    turns: 0,
    marker: { offset, inode, markerJson, scanState },
    changed: false,
    from: '',
  };
}

export function jsonlSource(o: JsonlSourceOptions): Pick<ProviderSource, 'baseline' | 'probe' | 'readTail'> {
  return {
    baseline(ref) {
      const file = filePath(ref);
      try {
        const st = o.fs.statSync(file);
        return { offset: st.size, inode: inodeOf(st), markerJson: null, scanState: null };
      } catch (err) {
        // A cold rollout: the offset is its decompressed size; any inode continues it.
        if (!o.cold || !isNotFound(err)) throw err;
        return { offset: o.cold.size(file), inode: null, markerJson: null, scanState: null };
      }
    },

    probe(ref, marker, ctx): ProbeOutcome {
      const file = filePath(ref);
      // Nearly every link is idle at a check: one stat says so, without decoding the marker or
      // building the probe's objects (issue 31: 10,000 idle links per check).
      const idle = idleOutcome(o.fs, file, marker);
      if (idle) return idle;
      const prev = toJsonlMarker(marker);
      const out = probeJsonl({
        file,
        marker: prev,
        rules: o.rules,
        ownTexts: ctx.ownTexts,
        fs: o.fs,
        ...(ctx.visible ? { visible: true } : {}),
        ...(o.existsElsewhere ? { existsElsewhere: () => o.existsElsewhere!(file) } : {}),
      });
      switch (out.kind) {
        case 'missing':
        case 'inconclusive':
          return out;
        case 'rebaseline':
          return { kind: 'rebaseline', marker: fromJsonlMarker(out.next), reason: out.reason };
        case 'activity':
          return {
            kind: 'activity',
            turns: out.turns,
            marker: fromJsonlMarker(out.next),
            changed: out.changed,
            from: prev.pend ? `${prev.offset}@${prev.pend.at}` : String(prev.offset),
            ...(out.occurredAt !== undefined ? { occurredAt: out.occurredAt } : {}),
            ...(out.messages ? { messages: out.messages } : {}),
          };
      }
    },

    readTail(ref, limit): VisibleMessage[] {
      const file = filePath(ref);
      let buf: Buffer;
      let skipFirst = false;
      try {
        const size = o.fs.statSync(file).size;
        const start = Math.max(0, size - IMPORT_BYTES);
        buf = readAt(o.fs, file, start, size - start);
        skipFirst = start > 0;
      } catch (err) {
        if (!o.cold) throw err;
        buf = o.cold.head(file, IMPORT_BYTES);
      }
      const out: VisibleMessage[] = [];
      const seen = new Set<string>();
      for (const r of rowsOf(buf, skipFirst)) {
        const id = o.rules.identity?.(r);
        if (id !== undefined && seen.has(id)) continue;
        if (id !== undefined) seen.add(id);
        const m = o.rules.visible(r);
        if (m) out.push(m);
      }
      return out.slice(-limit);
    },
  };
}
