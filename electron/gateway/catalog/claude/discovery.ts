// Claude Code discovery: `projects/<encoded-cwd>/<sessionId>.jsonl`. Sub-agent files
// (`agent-*.jsonl` beside the sessions, `<id>/subagents/`) are not sessions. A main file is listed
// when it has a non-sidechain user row, whatever its `entrypoint` and even when some rows are
// inline sidechain rows (spec). The folder name is never decoded: cwd comes from the rows.
import path from 'node:path';
import { claudeIsUserRow, claudeRules, claudeTitleText } from './rules';
import type { CatalogFs } from '../kit/fsio';
import type { Located, ProviderSource } from '../provider';
import { isoTime, str, type Row } from '../kit/rules';
import { headRows, listDir, oneLine, tailRows } from '../kit/windows';

function isMainFile(name: string): boolean {
  return name.endsWith('.jsonl') && !name.startsWith('agent-');
}

function firstMainUser(rows: Row[]): Row | undefined {
  return rows.find((r) => claudeIsUserRow(r) && r.isSidechain !== true);
}

export function claudeCatalog(
  root: string,
  cfs: CatalogFs,
): Pick<ProviderSource, 'units' | 'describe' | 'find'> {
  function describe(file: string): Located[] {
    const st = cfs.statSync(file);
    const head = headRows(
      cfs,
      file,
      st.size,
      (rows) => firstMainUser(rows) !== undefined && rows.some((r) => claudeRules.human(r)),
    );
    const first = firstMainUser(head);
    if (!first) return [];
    const prompt = head.find((r) => r.isSidechain !== true && claudeRules.human(r));
    const tail = tailRows(cfs, file, st.size, 0);
    let custom: string | undefined;
    let ai: string | undefined;
    let summary: string | undefined;
    let last: number | undefined;
    for (const r of [...head, ...tail]) {
      if (r.type === 'custom-title' && str(r.customTitle)) custom = str(r.customTitle);
      else if (r.type === 'ai-title' && str(r.aiTitle)) ai = str(r.aiTitle);
      else if (r.type === 'summary' && str(r.summary)) summary = str(r.summary);
      const t = isoTime(r.timestamp);
      if (t !== undefined && (last === undefined || t > last)) last = t;
    }
    const threadId = path.basename(file, '.jsonl');
    const title = custom ?? ai ?? summary ?? (prompt ? claudeTitleText(prompt) : undefined) ?? threadId;
    const cwd = str(first.cwd) ?? str(head.find((r) => str(r.cwd))?.cwd);
    return [
      {
        entry: {
          provider: 'claude',
          threadId,
          title: oneLine(title),
          ...(cwd ? { cwd } : {}),
          ...(isoTime(first.timestamp) !== undefined ? { createdAt: isoTime(first.timestamp) } : {}),
          lastActivityAt: last ?? st.mtimeMs,
          sizeBytes: st.size,
        },
        ref: { kind: 'file', path: file },
      },
    ];
  }
  return {
    units() {
      const out: string[] = [];
      for (const d of listDir(cfs, root)) {
        if (!d.dir) continue;
        const dir = path.join(root, d.name);
        for (const f of listDir(cfs, dir)) if (f.file && isMainFile(f.name)) out.push(path.join(dir, f.name));
      }
      return out;
    },
    describe,
    find(threadId) {
      if (!threadId || threadId.includes('/') || threadId.includes('\\') || threadId.startsWith('agent-'))
        return undefined;
      for (const d of listDir(cfs, root)) {
        if (!d.dir) continue;
        const file = path.join(root, d.name, `${threadId}.jsonl`);
        try {
          cfs.statSync(file);
        } catch {
          continue;
        }
        const found = describe(file)[0];
        if (found) return found;
      }
      return undefined;
    },
  };
}
