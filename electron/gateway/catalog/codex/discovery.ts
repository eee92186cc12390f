// Codex CLI discovery: `sessions/YYYY/MM/DD/rollout-*.jsonl`, their cold `.jsonl.zst` twins, and
// the flat `archived_sessions/` beside `sessions/`. The plain file wins when both exist. Rollouts
// of sub-agents (`session_meta.payload.source.subagent`) are not sessions.
import path from 'node:path';
import { codexRequestText, codexRules } from './rules';
import { readAt, type CatalogFs } from '../kit/fsio';
import type { Located, ProviderSource } from '../provider';
import { isoTime, obj, str, type Row } from '../kit/rules';
import { HEAD_MAX_BYTES, headRows, listDir, oneLine, rowsOf, zstdHead } from '../kit/windows';

const ROLLOUT = /^rollout-.*\.jsonl(\.zst)?$/;

export function codexArchiveDir(sessionsRoot: string): string {
  return path.join(path.dirname(sessionsRoot), 'archived_sessions');
}

/** The plain rollout path a `.zst` or archived file stands for (the link always names it). */
export function plainName(file: string): string {
  return file.endsWith('.zst') ? file.slice(0, -4) : file;
}

export function isSubagentSource(source: unknown): boolean {
  const o = obj(source);
  return o !== undefined && 'subagent' in o;
}

/** Is the rollout present anywhere (compressed sibling, or archived plain or compressed)? */
export function codexExistsElsewhere(cfs: CatalogFs, sessionsRoot: string, plain: string): boolean {
  const name = path.basename(plain);
  const archive = codexArchiveDir(sessionsRoot);
  for (const p of [`${plain}.zst`, path.join(archive, name), path.join(archive, `${name}.zst`)]) {
    try {
      cfs.statSync(p);
      return true;
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
    }
  }
  return false;
}

function readSessionIndex(cfs: CatalogFs, sessionsRoot: string): Map<string, string> {
  const names = new Map<string, string>();
  const file = path.join(path.dirname(sessionsRoot), 'session_index.jsonl');
  try {
    const size = cfs.statSync(file).size;
    const start = Math.max(0, size - 16 * 1024 * 1024);
    for (const r of rowsOf(readAt(cfs, file, start, size - start), start > 0)) {
      const id = str(r.id);
      const name = str(r.thread_name);
      if (id && name) names.set(id, name);
    }
  } catch {
    // No index: titles come from the first prompt.
  }
  return names;
}

/**
 * Every rollout file once: sessions/YYYY/MM/DD/ first, then the archive's rollouts that are not
 * also live. Of two copies of one rollout, the plain file wins over the compressed one.
 */
function rolloutFiles(cfs: CatalogFs, root: string): string[] {
  const byName = new Map<string, string>();
  const add = (dir: string, name: string) => {
    if (!ROLLOUT.test(name)) return;
    const key = name.replace(/\.zst$/, '');
    const prev = byName.get(key);
    // Prefer sessions/ over archived_sessions/, and plain over compressed.
    if (prev === undefined || (prev.endsWith('.zst') && !name.endsWith('.zst')))
      byName.set(key, path.join(dir, name));
  };
  for (const y of listDir(cfs, root))
    if (y.dir)
      for (const m of listDir(cfs, path.join(root, y.name)))
        if (m.dir)
          for (const d of listDir(cfs, path.join(root, y.name, m.name)))
            if (d.dir) {
              const dir = path.join(root, y.name, m.name, d.name);
              for (const f of listDir(cfs, dir)) if (f.file) add(dir, f.name);
            }
  const archive = codexArchiveDir(root);
  const live = new Set(byName.keys());
  for (const f of listDir(cfs, archive))
    if (f.file && !live.has(f.name.replace(/\.zst$/, ''))) add(archive, f.name);
  return [...byName.values()];
}

export function codexCatalog(
  root: string,
  cfs: CatalogFs,
): Pick<ProviderSource, 'units' | 'describe' | 'find'> {
  let index: Map<string, string> | undefined;
  const enough = (rows: Row[]) => rows.some((r) => codexRules.human(r));

  function describe(file: string): Located[] {
    const st = cfs.statSync(file);
    const rows = file.endsWith('.zst')
      ? rowsOf(zstdHead(cfs, file, HEAD_MAX_BYTES), false)
      : headRows(cfs, file, st.size, enough);
    const meta = rows[0];
    if (!meta || meta.type !== 'session_meta') return [];
    const p = obj(meta.payload);
    const threadId = str(p?.id);
    if (!p || !threadId || isSubagentSource(p.source)) return [];
    const prompt = rows.find((r) => codexRules.human(r));
    index ??= readSessionIndex(cfs, root);
    const promptText = prompt ? codexRequestText(codexRules.text(prompt) ?? '') : '';
    const title = index.get(threadId) ?? (promptText || threadId);
    const cwd = str(p.cwd);
    const created = isoTime(p.timestamp) ?? isoTime(meta.timestamp);
    return [
      {
        entry: {
          provider: 'codex',
          threadId,
          title: oneLine(title),
          ...(cwd ? { cwd } : {}),
          ...(created !== undefined ? { createdAt: created } : {}),
          lastActivityAt: st.mtimeMs,
          sizeBytes: st.size,
        },
        ref: { kind: 'file', path: plainName(file) },
      },
    ];
  }

  function units(): string[] {
    index = undefined;
    return rolloutFiles(cfs, root);
  }

  return {
    units,
    describe,
    find(threadId) {
      if (!threadId || /[/\\]/.test(threadId)) return undefined;
      for (const f of units()) {
        if (!path.basename(plainName(f), '.jsonl').endsWith(threadId)) continue;
        const found = describe(f)[0];
        if (found?.entry.threadId === threadId) {
          // An archived rollout is watched where it lies; a live one under its plain name.
          return found;
        }
      }
      return undefined;
    },
  };
}
