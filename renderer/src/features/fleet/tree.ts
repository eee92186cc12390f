import type { AgentView, SessionStatus, SessionView } from '../../../../shared/ipc';
import { sessionTitle } from '../../lib/format';
import type { FleetGroup, FleetSort, StatusFilter } from '../../stores/fleet-view';

export interface TreeRow {
  session: SessionView;
  depth: number;
}

/** A heading and its rows: an agent (with its parent tree) or a project folder. */
export interface AgentGroup {
  /** The agent's id, or `folder:<path>` when grouped by folder. */
  agentId: string;
  name: string;
  /** Shown on hover: the agent id or the full folder. */
  title: string;
  rows: TreeRow[];
}

export interface TreeOptions {
  filter: string;
  showArchived: boolean;
  status: StatusFilter;
  tool: string;
  sort: FleetSort;
  group: FleetGroup;
}

export const DEFAULT_TREE: TreeOptions = {
  filter: '',
  showArchived: false,
  status: 'all',
  tool: '',
  sort: 'tree',
  group: 'agent',
};

const KIND_ORDER: Record<SessionView['kind'], number> = {
  main: 0,
  other: 1,
  subagent: 2,
  acp: 2,
  adopted: 3,
  external: 3,
  bare: 4,
};

/** Most urgent first: what waits for the person, then failures, then work in flight. */
const STATUS_ORDER: Record<SessionStatus, number> = {
  waiting: 0,
  failed: 1,
  running: 2,
  done_unseen: 3,
  idle: 4,
};

const ADOPTED_TOOL: Record<string, string> = {
  claude: 'Claude Code',
  codex: 'Codex',
  opencode: 'OpenCode',
  pi: 'Pi',
};

/** An adopted session's tool in people's words ("Claude Code" for `claude`). */
export function toolName(provider: string): string {
  return ADOPTED_TOOL[provider] ?? provider;
}

/**
 * What runs the session, in people's words: the catalog tool of an adopted session, "ACP agent",
 * "outside", or the agent's model provider ("scripted" for the demo's scripted agents).
 */
export function toolOf(s: SessionView, agents: ReadonlyMap<string, AgentView>): string {
  if (s.kind === 'adopted') {
    return toolName(/:adopted:([^:@]+)/.exec(s.key)?.[1] ?? '');
  }
  if (s.kind === 'acp') return 'ACP agent';
  if (s.kind === 'external') return 'outside';
  const agent = agents.get(s.agentId);
  if (!agent) return 'session';
  return agent.provider === 'scripted' ? 'scripted' : agent.model || agent.provider;
}

/** The session's project folder: its working folder, or none. */
export function folderOf(s: SessionView): string {
  return s.cwd ?? '';
}

/** The gateway's order for keys (SQLite's binary collation); localeCompare costs ICU a call per pair. */
const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function matcher(o: TreeOptions, agents: ReadonlyMap<string, AgentView>): (s: SessionView) => boolean {
  const q = o.filter.trim().toLowerCase();
  return (s) =>
    (!q ||
      s.key.toLowerCase().includes(q) ||
      sessionTitle(s).toLowerCase().includes(q) ||
      s.kind.includes(q)) &&
    (o.status === 'all' || (o.status === 'upstream' ? !!s.alert : s.status.status === o.status)) &&
    (!o.tool || toolOf(s, agents) === o.tool);
}

function flatSort(sort: FleetSort): (a: SessionView, b: SessionView) => number {
  switch (sort) {
    case 'activity':
      return (a, b) => b.updatedAt - a.updatedAt || byCodePoint(a.key, b.key);
    case 'status':
      return (a, b) =>
        STATUS_ORDER[a.status.status] - STATUS_ORDER[b.status.status] || b.updatedAt - a.updatedAt;
    case 'name':
      return (a, b) => byCodePoint(sessionTitle(a).toLowerCase(), sessionTitle(b).toLowerCase());
    case 'tree':
      return (a, b) =>
        KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || a.createdAt - b.createdAt || byCodePoint(a.key, b.key);
  }
}

/** Sorted by name: each title lowered once (10,000 sessions, not once per comparison). */
function byName(list: SessionView[]): SessionView[] {
  const keyed = list.map((s) => ({ name: sessionTitle(s).toLowerCase(), s }));
  keyed.sort((a, b) => byCodePoint(a.name, b.name));
  return keyed.map((k) => k.s);
}

/** Rows of one group: the parent tree (children under their parent) or, sorted otherwise, flat. */
function rowsOf(list: SessionView[], o: TreeOptions, match: (s: SessionView) => boolean): TreeRow[] {
  if (o.sort !== 'tree') {
    // Flat: only the matching rows are sorted.
    const kept = list.filter(match);
    const sorted = o.sort === 'name' ? byName(kept) : kept.sort(flatSort(o.sort));
    return sorted.map((session) => ({ session, depth: 0 }));
  }
  list.sort(flatSort(o.sort));
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
  return rows;
}

const folderName = (dir: string) => dir.replace(/\/+$/, '').split('/').pop() || dir;

/**
 * Agents → sessions (main first, children under their parent, then adopted and the rest), or
 * project folders → sessions. Archived sessions are left out unless `showArchived`; the status,
 * tool and text filters keep only matching rows; a sort other than `tree` lists rows flat.
 */
export function buildTree(
  agents: AgentView[],
  all: SessionView[],
  opts: Partial<TreeOptions> = {},
): AgentGroup[] {
  const o = { ...DEFAULT_TREE, ...opts };
  const byId = new Map(agents.map((a) => [a.id, a]));
  const match = matcher(o, byId);
  const sessions = o.showArchived ? all : all.filter((s) => !s.archived);
  const narrowed = !!o.filter.trim() || o.status !== 'all' || !!o.tool;
  const buckets = new Map<string, SessionView[]>();
  const bucketOf = (s: SessionView) => (o.group === 'folder' ? folderOf(s) : s.agentId);
  for (const s of sessions) {
    const id = bucketOf(s);
    const list = buckets.get(id) ?? [];
    list.push(s);
    buckets.set(id, list);
  }
  const groups: AgentGroup[] = [];
  if (o.group === 'folder') {
    const dirs = [...buckets.keys()].sort((a, b) => (!a ? 1 : !b ? -1 : byCodePoint(a, b)));
    for (const dir of dirs) {
      const rows = rowsOf(buckets.get(dir)!, o, match);
      const name = dir ? folderName(dir) : 'No project folder';
      if (rows.length)
        groups.push({
          agentId: `folder:${dir}`,
          name,
          title: dir || 'sessions without a working folder',
          rows,
        });
    }
    return groups;
  }
  const ids = [...new Set([...agents.map((a) => a.id), ...buckets.keys()])];
  for (const agentId of ids) {
    const rows = rowsOf(buckets.get(agentId) ?? [], o, match);
    if (rows.length || (!narrowed && byId.has(agentId))) {
      groups.push({ agentId, name: byId.get(agentId)?.name ?? agentId, title: `agent ${agentId}`, rows });
    }
  }
  return groups;
}

export function flatKeys(groups: AgentGroup[]): string[] {
  return groups.flatMap((g) => g.rows.map((r) => r.session.key));
}
