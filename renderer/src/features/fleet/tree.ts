import type { AgentView, SessionView } from '../../../../shared/ipc';
import { sessionTitle } from '../../lib/format';

export interface TreeRow {
  session: SessionView;
  depth: number;
}

export interface AgentGroup {
  agentId: string;
  name: string;
  rows: TreeRow[];
}

const KIND_ORDER: Record<SessionView['kind'], number> = {
  main: 0,
  other: 1,
  subagent: 2,
  acp: 2,
  adopted: 3,
  external: 3,
  bare: 4,
};

/** The gateway's order for keys (SQLite's binary collation); localeCompare costs ICU a call per pair. */
const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Agents → sessions: main first, children under their parent, then adopted and the rest.
 * Archived sessions are left out unless `showArchived`.
 */
export function buildTree(
  agents: AgentView[],
  all: SessionView[],
  filter: string,
  showArchived = false,
): AgentGroup[] {
  const sessions = showArchived ? all : all.filter((s) => !s.archived);
  const q = filter.trim().toLowerCase();
  const match = (s: SessionView) =>
    !q || s.key.toLowerCase().includes(q) || sessionTitle(s).toLowerCase().includes(q) || s.kind.includes(q);
  const byAgent = new Map<string, SessionView[]>();
  for (const s of sessions) {
    const list = byAgent.get(s.agentId) ?? [];
    list.push(s);
    byAgent.set(s.agentId, list);
  }
  const names = new Map(agents.map((a) => [a.id, a.name]));
  const ids = [...new Set([...agents.map((a) => a.id), ...byAgent.keys()])];
  const groups: AgentGroup[] = [];
  for (const agentId of ids) {
    const list = (byAgent.get(agentId) ?? []).sort(
      (a, b) =>
        KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || a.createdAt - b.createdAt || byCodePoint(a.key, b.key),
    );
    const keys = new Set(list.map((s) => s.key));
    const children = new Map<string, SessionView[]>();
    const roots: SessionView[] = [];
    for (const s of list) {
      if (s.parentKey && keys.has(s.parentKey) && s.parentKey !== s.key) {
        const c = children.get(s.parentKey) ?? [];
        c.push(s);
        children.set(s.parentKey, c);
      } else roots.push(s);
    }
    const rows: TreeRow[] = [];
    const seen = new Set<string>();
    const walk = (s: SessionView, depth: number) => {
      if (seen.has(s.key)) return;
      seen.add(s.key);
      if (match(s)) rows.push({ session: s, depth });
      for (const c of children.get(s.key) ?? []) walk(c, depth + 1);
    };
    for (const r of roots) walk(r, 0);
    if (rows.length || (!q && agents.some((a) => a.id === agentId))) {
      groups.push({ agentId, name: names.get(agentId) ?? agentId, rows });
    }
  }
  return groups;
}

export function flatKeys(groups: AgentGroup[]): string[] {
  return groups.flatMap((g) => g.rows.map((r) => r.session.key));
}
