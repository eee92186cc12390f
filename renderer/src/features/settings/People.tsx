// Settings → People: on a gateway a team shares (npm run serve), who you are, the people with an
// account (owners invite and revoke), and the audit view: who did what (adopt, start, send,
// delete, consent, invite, revoke) and when. It follows the fleet live (re-read at most once a
// second after a push). On your own gateway it says so and shows nothing else.
import { useEffect } from 'react';
import { subscribe } from '../../lib/api';
import { dateTime } from '../../lib/format';
import type { AuditEntryView } from '../../../../shared/ipc/accounts';
import { usePeople } from '../../stores/people';

export function People() {
  const { local, me, people, audit, invite, error, invitePerson, revoke } = usePeople();

  useEffect(() => {
    void usePeople.getState().load();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const off = subscribe(() => {
      timer ??= setTimeout(() => {
        timer = undefined;
        void usePeople.getState().load();
      }, 1000);
    });
    return () => {
      off();
      if (timer) clearTimeout(timer);
    };
  }, []);

  if (local)
    return (
      <section className="settings-section" data-testid="people">
        <h2>People</h2>
        <p className="muted">
          This is your own gateway. To supervise one fleet with others, run <code>npm run serve</code> on a
          machine you all reach and connect with <code>npm run web -- --connect</code>.
        </p>
      </section>
    );
  const owner = me?.role === 'owner';
  return (
    <section className="settings-section" data-testid="people">
      <h2>People</h2>
      {error && <p className="error">{error}</p>}
      {me && (
        <p data-testid="people-me">
          You are <strong>{me.name}</strong> <span className="mono small">{me.id}</span> ({me.role})
        </p>
      )}
      <ul className="people-list">
        {people.map((p) => (
          <li key={p.id} data-testid="person" data-account={p.id}>
            {p.name} <span className="mono small muted">{p.id}</span> {p.role}
            {p.revokedAt ? <span className="muted"> · revoked {dateTime(p.revokedAt)}</span> : null}
            {owner && !p.revokedAt && p.id !== me?.id && (
              <button type="button" className="danger small" onClick={() => void revoke(p.id)}>
                Revoke
              </button>
            )}
          </li>
        ))}
      </ul>
      {owner && (
        <div className="inline">
          <button type="button" data-testid="people-invite" onClick={() => void invitePerson()}>
            Invite someone
          </button>
          {invite && (
            <span role="status">
              One-time code (good for a week, shown once):{' '}
              <code data-testid="people-invite-code">{invite}</code>
            </span>
          )}
        </div>
      )}
      <AuditTable audit={audit} />
    </section>
  );
}

/** The audit view: who did what and when, newest first. */
function AuditTable({ audit }: { audit: AuditEntryView[] }) {
  return (
    <>
      <h3>Audit</h3>
      <table className="audit" data-testid="audit">
        <thead>
          <tr>
            <th>When</th>
            <th>Who</th>
            <th>What</th>
            <th>On</th>
          </tr>
        </thead>
        <tbody>
          {audit.map((a) => (
            <tr key={a.id} data-testid="audit-row">
              <td>{dateTime(a.at)}</td>
              <td className="mono">{a.accountId}</td>
              <td>
                {a.action}
                {a.detail ? <span className="muted"> ({a.detail})</span> : null}
              </td>
              <td className="mono small">{a.target ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
