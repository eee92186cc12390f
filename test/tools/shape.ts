// The shape of a tool's transcript: which kinds of rows it writes and which fields each kind has
// (for OpenCode: its tables' columns, and the fields of its message and part records). Comparing
// the shape a newer version writes with the committed fixtures' shape is how a person learns of
// a format change before their users do.
import fs from 'node:fs';
import path from 'node:path';
import { betterSqliteOpener } from '../../electron/gateway/catalog/sqlite';
import type { ToolId } from './install';

/** Row kind → the sorted fields seen on rows of that kind. */
export type Shape = Record<string, string[]>;

type Row = Record<string, unknown>;
const objOf = (v: unknown): Row | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Row) : undefined;

function kindOf(tool: ToolId, r: Row): string {
  const p = objOf(r.payload);
  switch (tool) {
    case 'claude': {
      const sub = objOf(r.attachment)?.type ?? r.operation;
      return `${String(r.type)}${sub ? `:${String(sub)}` : ''}`;
    }
    case 'codex': {
      const item = objOf(p?.item)?.type;
      return `${String(r.type)}${p?.type ? `:${String(p.type)}` : ''}${item ? `:${String(item)}` : ''}`;
    }
    case 'pi': {
      const role = objOf(r.message)?.role;
      return `${String(r.type)}${role ? `:${String(role)}` : ''}`;
    }
    case 'opencode':
      return String(r.type);
  }
}

/** Top-level fields, and one level down in the envelope objects (`message`, `payload`, `item`). */
function fieldsOf(r: Row): string[] {
  const out = Object.keys(r);
  for (const k of ['message', 'payload']) {
    const o = objOf(r[k]);
    if (o) out.push(...Object.keys(o).map((f) => `${k}.${f}`));
  }
  const item = objOf(objOf(r.payload)?.item);
  if (item) out.push(...Object.keys(item).map((f) => `payload.item.${f}`));
  return out;
}

function add(shape: Shape, kind: string, fields: string[]): void {
  shape[kind] = [...new Set([...(shape[kind] ?? []), ...fields])].sort();
}

/**
 * The shape of JSONL transcripts, up to the last row that mentions `until` (the run's last
 * prompt): what a tool writes while it waits for its failing model call depends on when it was
 * stopped, so it is left out of the comparison.
 */
export function jsonlShape(tool: ToolId, files: string[], until?: string): Shape {
  const shape: Shape = {};
  const needle = until === undefined ? undefined : JSON.stringify(until).slice(1, -1);
  for (const f of files) {
    const lines = fs.readFileSync(f, 'utf8').split('\n');
    let last = lines.length - 1;
    if (needle !== undefined) while (last >= 0 && !lines[last]!.includes(needle)) last--;
    for (const line of lines.slice(0, last + 1)) {
      if (!line.trim()) continue;
      let r: Row | undefined;
      try {
        r = objOf(JSON.parse(line));
      } catch {
        r = undefined;
      }
      if (r) add(shape, kindOf(tool, r), fieldsOf(r));
      else add(shape, '(not a JSON object)', []);
    }
  }
  return shape;
}

export function opencodeShape(dbFile: string): Shape {
  const shape: Shape = {};
  const db = betterSqliteOpener(dbFile);
  try {
    for (const t of db.all("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"))
      add(
        shape,
        `table ${String(t.name)}`,
        db.all(`PRAGMA table_info("${String(t.name)}")`).map((c) => String(c.name)),
      );
    for (const m of db.all('SELECT data FROM message')) {
      const d = objOf(JSON.parse(String(m.data))) ?? {};
      add(shape, `message:${String(d.role)}`, Object.keys(d));
    }
    for (const p of db.all('SELECT data FROM part')) {
      const d = objOf(JSON.parse(String(p.data))) ?? {};
      add(shape, `part:${String(d.type)}`, Object.keys(d));
    }
  } finally {
    db.close();
  }
  return shape;
}

/** Every transcript file under a folder (the tools' JSONL layouts), sorted. */
export function jsonlFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.jsonl'))
    .map((f) => path.join(dir, f))
    .sort();
}

/** What changed from `before` to `after`, one line per kind; empty when nothing did. */
export function shapeDiff(before: Shape, after: Shape): string[] {
  const out: string[] = [];
  for (const kind of Object.keys(after).sort()) {
    const was = before[kind];
    if (!was) {
      out.push(`new: ${kind} {${after[kind]!.join(', ')}}`);
      continue;
    }
    const added = after[kind]!.filter((f) => !was.includes(f));
    const gone = was.filter((f) => !after[kind]!.includes(f));
    if (added.length || gone.length)
      out.push(
        `${kind}: ${[added.length ? `+${added.join(' +')}` : '', gone.length ? `-${gone.join(' -')}` : '']
          .filter(Boolean)
          .join(' ')}`,
      );
  }
  for (const kind of Object.keys(before).sort()) if (!after[kind]) out.push(`gone: ${kind}`);
  return out;
}
