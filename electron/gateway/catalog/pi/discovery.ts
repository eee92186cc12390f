// Pi discovery: `<agentDir>/sessions/--<cwd>--/<timestamp>_<uuid>.jsonl` (or a flat session dir).
// Only version-3 files are listed and adopted: Pi rewrites older files in place when it opens
// them, so byte offsets into a v1/v2 file are not stable (reference §4.4).
import path from 'node:path';
import { fileStamp, type CatalogFs } from '../kit/fsio';
import { piRules } from './rules';
import type { Located, ProviderSource } from '../provider';
import { isoTime, obj, str } from '../kit/rules';
import { headRows, listDir, oneLine, tailRows } from '../kit/windows';

export class LegacyPiSessionError extends Error {}

/** Every session file: in a per-folder directory, or flat in the root. */
function sessionFiles(cfs: CatalogFs, root: string): string[] {
  const out: string[] = [];
  for (const d of listDir(cfs, root)) {
    if (d.file && d.name.endsWith('.jsonl')) out.push(path.join(root, d.name));
    else if (d.dir)
      for (const f of listDir(cfs, path.join(root, d.name)))
        if (f.file && f.name.endsWith('.jsonl')) out.push(path.join(root, d.name, f.name));
  }
  return out;
}

/**
 * The name the person gave the session (its latest session_info) and the time of its latest
 * user or assistant message: the activity a person would call the last turn.
 */
function nameAndLastTurn(rows: Record<string, unknown>[]): { name?: string; last?: number } {
  let name: string | undefined;
  let last: number | undefined;
  for (const r of rows) {
    if (r.type === 'session_info') name = str(r.name) || undefined;
    if (r.type === 'message') {
      const role = obj(r.message)?.role;
      const t = isoTime(obj(r.message)?.timestamp) ?? isoTime(r.timestamp);
      if ((role === 'user' || role === 'assistant') && t !== undefined && (last === undefined || t > last))
        last = t;
    }
  }
  return { name, last };
}

export function piCatalog(
  root: string,
  cfs: CatalogFs,
): Pick<ProviderSource, 'units' | 'describe' | 'stamp' | 'find'> {
  function header(file: string): { row: Record<string, unknown>; size: number; mtime: number } | undefined {
    const st = cfs.statSync(file);
    const rows = headRows(cfs, file, st.size, (r) => r.length > 0);
    const h = rows[0];
    if (!h || h.type !== 'session' || !str(h.id)) return undefined;
    return { row: h, size: st.size, mtime: st.mtimeMs };
  }

  function describe(file: string): Located[] {
    const h = header(file);
    if (!h || h.row.version !== 3) return [];
    const st = { size: h.size };
    const head = headRows(cfs, file, st.size, (rows) =>
      rows.some((r) => piRules.human(r) && obj(r.message)?.role === 'user'),
    );
    const tail = tailRows(cfs, file, st.size, 0);
    const { name, last } = nameAndLastTurn([...head, ...tail]);
    const firstPrompt = head.find((r) => r.type === 'message' && obj(r.message)?.role === 'user');
    const threadId = str(h.row.id)!;
    const title = name ?? (firstPrompt ? piRules.text(firstPrompt) : undefined) ?? threadId;
    const cwd = str(h.row.cwd);
    const created = isoTime(h.row.timestamp);
    return [
      {
        entry: {
          provider: 'pi',
          threadId,
          title: oneLine(title),
          ...(cwd ? { cwd } : {}),
          ...(created !== undefined ? { createdAt: created } : {}),
          lastActivityAt: last ?? created ?? h.mtime,
          sizeBytes: h.size,
        },
        ref: { kind: 'file', path: file },
      },
    ];
  }

  const units = (): string[] => sessionFiles(cfs, root);

  return {
    units,
    describe,
    stamp: (file) => fileStamp(cfs, file, 'pi-1'),
    find(threadId) {
      if (!threadId) return undefined;
      const all = units();
      // Pi names files `<timestamp>_<id>.jsonl`; look there first, then at every header.
      const ordered = [
        ...all.filter((f) => f.endsWith(`_${threadId}.jsonl`)),
        ...all.filter((f) => !f.endsWith(`_${threadId}.jsonl`)),
      ];
      for (const f of ordered) {
        let h;
        try {
          h = header(f);
        } catch {
          continue;
        }
        if (!h || h.row.id !== threadId) continue;
        if (h.row.version !== 3)
          throw new LegacyPiSessionError(
            `Pi session ${threadId} uses an old transcript format (v${String(h.row.version ?? 1)}); open it once in Pi so it is migrated to v3, then adopt it`,
          );
        return describe(f)[0];
      }
      return undefined;
    },
  };
}
