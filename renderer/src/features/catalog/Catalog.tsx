import { useEffect } from 'react';
import { useCatalog } from '../../stores/catalog';
import { useUi } from '../../stores/ui';
import { errorMessage } from '../../lib/api';
import { bytes, dateTime } from '../../lib/format';

export function Catalog() {
  const entries = useCatalog((s) => s.entries);
  const loaded = useCatalog((s) => s.loaded);
  const loading = useCatalog((s) => s.loading);
  const load = useCatalog((s) => s.load);
  const adopt = useCatalog((s) => s.adopt);
  const openSession = useUi((s) => s.openSession);
  const setError = useUi((s) => s.setError);

  useEffect(() => {
    load().catch((err: unknown) => setError(errorMessage(err)));
  }, [load, setError]);

  return (
    <section className="page" data-testid="catalog" data-ready={loaded && !loading ? 'true' : 'false'}>
      <h1>Catalog</h1>
      <p className="muted">
        Agent sessions already on this machine (Claude Code, Codex CLI, OpenCode, Pi). Adopt one to bring it
        under watch; direct human activity upstream is then recorded in its signal log.
      </p>
      <button type="button" onClick={() => void load()} disabled={loading}>
        {loading ? 'Scanning…' : 'Rescan'}
      </button>
      {loaded && entries.length === 0 && (
        <p className="empty-note">No sessions found in the catalog roots.</p>
      )}
      <table className="catalog-table">
        <thead>
          <tr>
            <th>Tool</th>
            <th>Title</th>
            <th>Folder</th>
            <th>Last activity</th>
            <th>Size</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {entries.map((e) => (
            <tr
              key={`${e.provider}:${e.threadId}`}
              data-testid="catalog-entry"
              data-provider={e.provider}
              data-thread-id={e.threadId}
            >
              <td>{e.provider}</td>
              <td>{e.title}</td>
              <td className="mono small">{e.cwd ?? ''}</td>
              <td className="small">{e.lastActivityAt ? dateTime(e.lastActivityAt) : ''}</td>
              <td className="small">{bytes(e.sizeBytes)}</td>
              <td>
                <button
                  type="button"
                  data-testid="catalog-adopt"
                  onClick={() =>
                    adopt(e.provider, e.threadId).then(
                      (key) => openSession(key),
                      (err: unknown) => setError(errorMessage(err)),
                    )
                  }
                >
                  {e.adopted ? 'Adopt again' : 'Adopt'}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
