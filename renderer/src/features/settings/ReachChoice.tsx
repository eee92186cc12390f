// What an MCP credential reaches (issue 29.2): one choice per reach, each with what it means, so
// the person decides knowingly. Wider than "tree" is asked again as a consent question.
import { REACH_RULES, REACHES, type Reach } from '../../../../shared/ipc';

const NOTE: Record<Reach, string> = {
  tree: 'It cannot read or message your other sessions.',
  agent: 'It can read (credentials masked) and message every session of the same agent, yours included.',
  all: 'It can read (credentials masked) and message every session. Only for an agent you trust like yourself.',
};

export function ReachChoice({
  id,
  value,
  onChange,
}: {
  id: string;
  value: Reach;
  onChange(reach: Reach): void;
}) {
  return (
    <fieldset className="reach-choice" data-testid={id}>
      <legend>What it may see and act on</legend>
      {REACHES.map((r) => (
        <label key={r} className="small">
          <input
            type="radio"
            name={id}
            value={r}
            checked={value === r}
            data-testid={`${id}-${r}`}
            onChange={() => onChange(r)}
          />{' '}
          <strong>{r}</strong>: {REACH_RULES[r]}. <span className="muted">{NOTE[r]}</span>
        </label>
      ))}
      <p className="muted small">
        Messages into a real coding agent it did not start always ask you first, whatever it reaches.
      </p>
    </fieldset>
  );
}

/** One line for a credential's row. */
export function reachLine(reach: Reach): string {
  return `${REACH_RULES[reach]} (${reach})`;
}
