// Claude Code discovery: `projects/<encoded-cwd>/<sessionId>.jsonl`. Sub-agent files
// (`agent-*.jsonl` beside the sessions, `<id>/subagents/`) are not sessions. A main file is listed
// when it has a non-sidechain user row, whatever its `entrypoint` and even when some rows are
// inline sidechain rows (spec). The folder name is never decoded: cwd comes from the rows.
import path from 'node:path';
import { claudeIsUserRow, claudeRules, claudeTitleText } from './rules';
import type { Stats } from 'node:fs';
import { statStamp, type CatalogFs } from '../kit/fsio';
import type { Located, ProviderSource } from '../provider';
import { isoTime, str, type Row } from '../kit/rules';
import { listDir, oneLine } from '../kit/windows';
import { firstWith, headAndTail, lastTimestamp, typedRows, type Window } from '../kit/token-rows';

function isMainFile(name: string): boolean {
  return name.endsWith('.jsonl') && !name.startsWith('agent-');
}

const USER = Buffer.from('"user"');
const CWD = Buffer.from('"cwd"');
const TITLE_ROWS = new Set(['custom-title', 'ai-title', 'summary']);

function isMainUser(r: Row): boolean {
  return claudeIsUserRow(r) && r.isSidechain !== true;
}

/** The first main user row and the first prompt a person typed, from the rows holding "user". */
function firstUsers(w: Window): { first?: Row; prompt?: Row } {
  let first: Row | undefined;
  const prompt = firstWith(w, USER, (r) => {
    if (!isMainUser(r)) return undefined;
    first ??= r;
    return claudeRules.human(r) ? r : undefined;
  });
  return { ...(first ? { first } : {}), ...(prompt ? { prompt } : {}) };
}

/** A title in order of preference: the name the person gave, Claude's own, a summary (newest of each). */
function titleIn(rows: Row[]): string | undefined {
  let custom: string | undefined;
  let ai: string | undefined;
  let summary: string | undefined;
  for (const r of rows) {
    if (r.type === 'custom-title' && str(r.customTitle)) custom = str(r.customTitle);
    else if (r.type === 'ai-title' && str(r.aiTitle)) ai = str(r.aiTitle);
    else if (r.type === 'summary' && str(r.summary)) summary = str(r.summary);
  }
  return custom ?? ai ?? summary;
}

export function claudeCatalog(
  root: string,
  cfs: CatalogFs,
): Pick<ProviderSource, 'units' | 'describe' | 'stamp' | 'find'> {
  // Reads a head and a tail window and parses only the rows a listing shows (kit/token-rows.ts):
  // the first user rows and the title rows; the last time is read without parsing.
  let stamped: { file: string; st: Stats } | undefined;
  function describe(file: string): Located[] {
    // The listing stamps a file right before describing it: one stat serves both.
    const st = stamped?.file === file ? stamped.st : cfs.statSync(file);
    stamped = undefined;
    let seen: Window | undefined;
    let users: ReturnType<typeof firstUsers> = {};
    const usersOf = (w: Window) => (w === seen ? users : ((seen = w), (users = firstUsers(w))));
    const { head, tail } = headAndTail(cfs, file, st.size, (h) => usersOf(h).prompt !== undefined);
    const { first, prompt } = usersOf(head);
    if (!first) return [];
    const named = titleIn(
      tail === head
        ? typedRows(head, TITLE_ROWS)
        : [...typedRows(head, TITLE_ROWS), ...typedRows(tail, TITLE_ROWS)],
    );
    const threadId = path.basename(file, '.jsonl');
    const title = named ?? (prompt ? claudeTitleText(prompt) : undefined) ?? threadId;
    const cwd = str(first.cwd) ?? firstWith(head, CWD, (r) => str(r.cwd));
    const created = isoTime(first.timestamp);
    return [
      {
        entry: {
          provider: 'claude',
          threadId,
          title: oneLine(title),
          ...(cwd ? { cwd } : {}),
          ...(created !== undefined ? { createdAt: created } : {}),
          lastActivityAt: lastTimestamp(tail) ?? lastTimestamp(head) ?? st.mtimeMs,
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
    stamp(file) {
      stamped = { file, st: cfs.statSync(file) };
      return statStamp(stamped.st, 'claude-1');
    },
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
