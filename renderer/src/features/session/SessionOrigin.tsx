// Under a session's name: what runs it (tool or agent), where (its folder) and since when, in
// people's words; the key is one click away (copy), not the headline. Beside the status:
// HeaderBadges, the extension point for header badges (tokens, cost, branch).
import type { SessionView } from '../../../../shared/ipc';
import { useFleet } from '../../stores/fleet';
import { useUi } from '../../stores/ui';
import { ago, dateTime } from '../../lib/format';
import { UsageBadges } from './Usage';
import { toolOf } from '../fleet/tree';
import { KIND_LABEL } from '../fleet/FleetRow';

function useTool(s: SessionView): string {
  const agents = useFleet((st) => st.agents);
  return toolOf(s, new Map(agents.map((a) => [a.id, a])));
}

export function SessionOrigin({ s }: { s: SessionView }) {
  const tool = useTool(s);
  const copy = () =>
    void navigator.clipboard?.writeText(s.key).then(
      () => useUi.getState().flash('Session key copied.'),
      () => useUi.getState().flash(s.key),
    );
  return (
    <div className="session-origin small muted" data-testid="session-origin">
      <span data-testid="session-tool" className={tool === 'scripted' ? 'badge scripted' : undefined}>
        {tool === 'scripted' ? 'scripted demo agent (no model)' : tool}
      </span>
      <span> · {KIND_LABEL[s.kind]}</span>
      {s.cwd && (
        <>
          {' · in '}
          <span className="mono" data-testid="session-cwd" title="Working folder">
            {s.cwd}
          </span>
        </>
      )}
      {' · '}
      <button type="button" className="link small" data-testid="session-key" title={s.key} onClick={copy}>
        copy key
      </button>
      {/* Last: the only part that changes by itself (the visual check masks it). */}
      <span title={dateTime(s.createdAt)} data-testid="session-started">
        {' · started '}
        {ago(s.createdAt)}
      </span>
    </div>
  );
}

/**
 * Badges beside the status. A scripted agent uses no model: it shows no token counts of its own,
 * which it never spent, only what the real agents it started reported (its tree).
 */
export function HeaderBadges({ s }: { s: SessionView }) {
  const tool = useTool(s);
  return <UsageBadges s={s} own={tool !== 'scripted'} />;
}
