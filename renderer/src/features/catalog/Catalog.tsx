import { useEffect, useMemo } from 'react';
import type { CatalogEntry, CatalogRootView } from '../../../../shared/ipc';
import { useCatalog } from '../../stores/catalog';
import { useUi } from '../../stores/ui';
import { errorMessage } from '../../lib/api';
import { bytes, dateTime, visible } from '../../lib/format';
import { Checkbox } from '../../components/Checkbox';

const TOOL = { claude: 'Claude Code', codex: 'Codex CLI', opencode: 'OpenCode', pi: 'Pi' } as const;
const NO_FOLDER = '(no project folder)';

/** Where the catalog looks, whether each folder exists, and how to move it. */
function Roots({ roots, open }: { roots: CatalogRootView[]; open: boolean }) {
  return (
    <details className="catalog-roots" open={open} data-testid="catalog-roots">
      <summary>Where Sightline looks</summary>
      <dl className="roots">
        {roots.map((r) => (
          <div key={r.provider} className="contents" data-testid="catalog-root" data-provider={r.provider}>
            <dt>{TOOL[r.provider]}</dt>
            <dd className="mono small" data-testid="catalog-root-path">
              {r.path}
            </dd>
            <dd className={r.exists ? 'small ok-text' : 'small muted'}>{r.exists ? 'found' : 'not found'}</dd>
          </div>
        ))}
      </dl>
      <p className="muted small">
        To look elsewhere, set the tool&apos;s own variable before starting Sightline:{' '}
        {roots.map((r, i) => (
          <span key={r.provider}>
            {i > 0 && '; '}
            {TOOL[r.provider]}: <code>{r.env}</code>
          </span>
        ))}
        . Sightline only reads these folders; it never writes to them.
      </p>
    </details>
  );
}

function matches(e: CatalogEntry, q: string): boolean {
  if (!q) return true;
  const hay = `${e.title} ${e.cwd ?? ''} ${e.provider} ${TOOL[e.provider]} ${e.threadId}`.toLowerCase();
  return q
    .split(/\s+/)
    .filter(Boolean)
    .every((w) => hay.includes(w));
}

/** Entries by project folder, the folder with the most recent activity first. */
function byFolder(entries: CatalogEntry[]): { folder: string; entries: CatalogEntry[] }[] {
  const groups = new Map<string, CatalogEntry[]>();
  for (const e of entries) {
    const k = e.cwd || NO_FOLDER;
    const list = groups.get(k) ?? [];
    list.push(e);
    groups.set(k, list);
  }
  const latest = (list: CatalogEntry[]) => Math.max(...list.map((e) => e.lastActivityAt ?? 0));
  return [...groups.entries()]
    .map(([folder, list]) => ({ folder, entries: list }))
    .sort((a, b) => latest(b.entries) - latest(a.entries) || a.folder.localeCompare(b.folder));
}

/** Each host once, this machine first, then nodes by name. */
function hosts(entries: CatalogEntry[]): { id: string; name: string }[] {
  const seen = new Map<string, { id: string; name: string; remote: boolean }>();
  for (const e of entries)
    if (!seen.has(e.hostId)) seen.set(e.hostId, { id: e.hostId, name: e.hostName, remote: e.remote });
  return [...seen.values()].sort(
    (a, b) => Number(a.remote) - Number(b.remote) || a.name.localeCompare(b.name),
  );
}

interface Columns {
  folder: boolean;
  host: boolean;
}

function EntryRow({ e, show }: { e: CatalogEntry; show: Columns }) {
  const adopt = useCatalog((s) => s.adopt);
  const openSession = useUi((s) => s.openSession);
  const setError = useUi((s) => s.setError);
  return (
    <tr
      data-testid="catalog-entry"
      data-provider={e.provider}
      data-thread-id={e.threadId}
      data-host-id={e.hostId}
      data-remote={e.remote ? 'true' : 'false'}
    >
      <td>{TOOL[e.provider]}</td>
      {show.host && (
        <td className="small" data-testid="catalog-host">
          {e.hostName}
        </td>
      )}
      <td>{visible(e.title)}</td>
      {show.folder && <td className="mono small">{visible(e.cwd ?? '')}</td>}
      <td className="small">{e.lastActivityAt ? dateTime(e.lastActivityAt) : ''}</td>
      <td className="small">{bytes(e.sizeBytes)}</td>
      <td>
        <button
          type="button"
          data-testid="catalog-adopt"
          title="Create a Sightline session for it and watch it: a person's activity in the tool is then recorded in its signal log"
          onClick={() =>
            adopt(e).then(
              (key) => openSession(key),
              (err: unknown) => setError(errorMessage(err)),
            )
          }
        >
          {e.adopted ? 'Adopt again' : 'Adopt'}
        </button>
      </td>
    </tr>
  );
}

function Table({ entries, show }: { entries: CatalogEntry[]; show: Columns }) {
  return (
    <table className="catalog-table">
      <thead>
        <tr>
          <th>Tool</th>
          {show.host && <th>Machine</th>}
          <th>Title</th>
          {show.folder && <th>Folder</th>}
          <th>Last activity</th>
          <th>Size</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {entries.map((e) => (
          <EntryRow key={`${e.hostId}:${e.provider}:${e.threadId}`} e={e} show={show} />
        ))}
      </tbody>
    </table>
  );
}

/** Filter, machine, grouping, Rescan and the count of what is shown. */
function CatalogTools({
  hostList,
  onHost,
  shown,
  total,
}: {
  hostList: { id: string; name: string }[];
  onHost: string;
  shown: number;
  total: number;
}) {
  const loaded = useCatalog((s) => s.loaded);
  const loading = useCatalog((s) => s.loading);
  const load = useCatalog((s) => s.load);
  const filter = useCatalog((s) => s.filter);
  const setFilter = useCatalog((s) => s.setFilter);
  const setHost = useCatalog((s) => s.setHost);
  const grouped = useCatalog((s) => s.groupByFolder);
  const setGrouped = useCatalog((s) => s.setGroupByFolder);
  return (
    <div className="inline catalog-tools">
      <input
        type="search"
        data-testid="catalog-filter"
        aria-label="Filter the catalog"
        placeholder="Filter by title, folder or tool"
        value={filter}
        onChange={(e) => setFilter(e.target.value)}
      />
      {hostList.length > 1 && (
        <select
          data-testid="catalog-host-filter"
          aria-label="Machine"
          value={onHost}
          onChange={(e) => setHost(e.target.value)}
        >
          <option value="">All machines</option>
          {hostList.map((h) => (
            <option key={h.id} value={h.id}>
              {h.name}
            </option>
          ))}
        </select>
      )}
      <Checkbox className="small" testId="catalog-group" checked={grouped} onChange={setGrouped}>
        Group by project folder
      </Checkbox>
      <button type="button" onClick={() => void load()} disabled={loading}>
        {loading ? 'Scanning…' : 'Rescan'}
      </button>
      {loaded && total > 0 && (
        <span className="muted small" data-testid="catalog-count">
          {shown === total ? `${total} session${total === 1 ? '' : 's'}` : `${shown} of ${total}`}
        </span>
      )}
    </div>
  );
}

/** The shown entries: one table, or one per project folder. */
function CatalogList({ shown, manyHosts }: { shown: CatalogEntry[]; manyHosts: boolean }) {
  const grouped = useCatalog((s) => s.groupByFolder);
  const groups = useMemo(() => (grouped ? byFolder(shown) : []), [grouped, shown]);
  if (!grouped)
    return shown.length > 0 ? <Table entries={shown} show={{ folder: true, host: manyHosts }} /> : null;
  return (
    <>
      {groups.map((g) => (
        <section
          key={g.folder}
          className="catalog-folder"
          data-testid="catalog-folder"
          data-folder={g.folder}
        >
          <h2 className="mono" title={g.folder}>
            {visible(g.folder)} <span className="muted small">({g.entries.length})</span>
          </h2>
          <Table entries={g.entries} show={{ folder: false, host: manyHosts }} />
        </section>
      ))}
    </>
  );
}

export function Catalog() {
  const entries = useCatalog((s) => s.entries);
  const roots = useCatalog((s) => s.roots);
  const loaded = useCatalog((s) => s.loaded);
  const loading = useCatalog((s) => s.loading);
  const load = useCatalog((s) => s.load);
  const filter = useCatalog((s) => s.filter);
  const host = useCatalog((s) => s.host);
  const setError = useUi((s) => s.setError);

  useEffect(() => {
    load().catch((err: unknown) => setError(errorMessage(err)));
  }, [load, setError]);

  const q = filter.trim().toLowerCase();
  const hostList = useMemo(() => hosts(entries), [entries]);
  // A host filter for a host that is gone (node removed) shows every host.
  const onHost = hostList.some((h) => h.id === host) ? host : '';
  const shown = useMemo(
    () => entries.filter((e) => (!onHost || e.hostId === onHost) && matches(e, q)),
    [entries, q, onHost],
  );

  return (
    <section className="page" data-testid="catalog" data-ready={loaded && !loading ? 'true' : 'false'}>
      <h1>Catalog</h1>
      <p className="muted">
        Agent sessions already on this machine and on your nodes (Settings → Nodes): Claude Code, Codex CLI,
        OpenCode, Pi. Adopt one to bring it under watch; direct human activity upstream is then recorded in
        its signal log.
      </p>
      {loaded && <Roots roots={roots} open={entries.length === 0} />}
      <CatalogTools hostList={hostList} onHost={onHost} shown={shown.length} total={entries.length} />
      {loaded && entries.length === 0 && (
        <p className="empty-note" data-testid="catalog-empty">
          No Claude Code, Codex, OpenCode or Pi sessions were found in the folders above. Start one of those
          tools in a project (or point Sightline at their folders) and press Rescan.
        </p>
      )}
      {loaded && entries.length > 0 && shown.length === 0 && (
        <p className="empty-note" data-testid="catalog-no-match">
          No catalog session matches “{filter.trim()}”.
        </p>
      )}
      <CatalogList shown={shown} manyHosts={hostList.length > 1} />
    </section>
  );
}
