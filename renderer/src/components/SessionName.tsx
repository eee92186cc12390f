// A session as a person names it: its label (or the short key), the full key on hover.
import { useFleet } from '../stores/fleet';
import { sessionTitle } from '../lib/format';

export function SessionName({ sessionKey, className }: { sessionKey: string; className?: string }) {
  const label = useFleet((s) => s.sessions[sessionKey]?.label);
  return (
    <strong className={className ?? 'session-name'} title={sessionKey} data-session-key={sessionKey}>
      {sessionTitle({ key: sessionKey, label: label ?? '' })}
    </strong>
  );
}
