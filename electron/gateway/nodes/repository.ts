// The owner of `catalog_nodes` (migration 014 and later): the paired nodes as stored. Statements
// only; the connections and input checks are in service.ts.
import type { Db } from '../db/open';

export interface NodeRow {
  id: string;
  name: string;
  ssh: string | null;
  command_json: string | null;
  node_command_json: string | null;
  allow_continue: number;
  sessions_seen: number | null;
  last_check_at: number | null;
  host_key: string | null;
}

export type NodeRepository = ReturnType<typeof createNodeRepository>;

export function createNodeRepository(db: Db) {
  const q = {
    all: db.prepare<[], NodeRow>('SELECT * FROM catalog_nodes ORDER BY created_at, id'),
    get: db.prepare<[string], NodeRow>('SELECT * FROM catalog_nodes WHERE id = ?'),
    insert: db.prepare(
      `INSERT INTO catalog_nodes (id, name, ssh, command_json, node_command_json, allow_continue, sessions_seen, last_check_at, created_at, updated_at)
       VALUES (@id, @name, @ssh, @command, @nodeCommand, @allowContinue, @sessions, @at, @at, @at)`,
    ),
    rename: db.prepare('UPDATE catalog_nodes SET name = ?, updated_at = ? WHERE id = ?'),
    bindKey: db.prepare('UPDATE catalog_nodes SET host_key = ? WHERE id = ?'),
    checked: db.prepare('UPDATE catalog_nodes SET last_check_at = ? WHERE id = ?'),
    seen: db.prepare('UPDATE catalog_nodes SET sessions_seen = ?, last_check_at = ? WHERE id = ?'),
    remove: db.prepare('DELETE FROM catalog_nodes WHERE id = ?'),
  };
  return {
    all: (): NodeRow[] => q.all.all(),
    get: (id: string): NodeRow | undefined => q.get.get(id),
    insert: (row: {
      id: string;
      name: string;
      ssh: string | null;
      command: string | null;
      nodeCommand: string | null;
      allowContinue: number;
      sessions: number | null;
      at: number;
    }) => void q.insert.run(row),
    /** False when there is no such node. */
    rename: (name: string, at: number, id: string): boolean => q.rename.run(name, at, id).changes > 0,
    bindKey: (key: string | null, id: string) => void q.bindKey.run(key, id),
    checked: (at: number, id: string) => void q.checked.run(at, id),
    seen: (sessions: number, at: number, id: string) => void q.seen.run(sessions, at, id),
    remove: (id: string) => void q.remove.run(id),
    /** `fn` and its writes in one transaction (a node's removal takes its links along). */
    transaction: (fn: () => void) => db.transaction(fn)(),
  };
}
