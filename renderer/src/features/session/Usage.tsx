// Tokens, cost and context as the agents reported them (issue 28.6): the session's own, its parent
// tree's (the session and every session below it), and its agent's context window. An agent that
// reported nothing shows nothing: no zeros, no estimates.
import { useMemo } from 'react';
import type { Cost, SessionView } from '../../../../shared/ipc';
import { useFleet } from '../../stores/fleet';
import { moneyList, tokens } from '../../lib/format';

interface Usage {
  input: number;
  output: number;
  costs: Cost[];
}

const usageOf = (s: SessionView): Usage => ({
  input: s.tokens.input,
  output: s.tokens.output,
  costs: s.costs ?? [],
});

const reported = (u: Usage) => u.input > 0 || u.output > 0 || u.costs.length > 0;

/** The words for a usage: "1.2k in · 340 out · $0.0031", each part only when reported. */
export function usageText(u: Usage): string {
  const parts: string[] = [];
  if (u.input > 0 || u.output > 0) parts.push(`${tokens(u.input)} in · ${tokens(u.output)} out`);
  if (u.costs.length) parts.push(moneyList(u.costs));
  return parts.join(' · ');
}

function add(total: Usage, u: Usage): void {
  total.input += u.input;
  total.output += u.output;
  for (const c of u.costs) {
    const same = total.costs.find((t) => t.currency === c.currency);
    if (same) same.amount += c.amount;
    else total.costs.push({ ...c });
  }
}

/** The session and everything below it (parentKey links), summed; undefined when it has no children. */
function treeUsage(sessions: Record<string, SessionView>, root: string): Usage | undefined {
  const below = new Map<string, string[]>();
  for (const v of Object.values(sessions)) {
    if (!v.parentKey) continue;
    const list = below.get(v.parentKey) ?? [];
    list.push(v.key);
    below.set(v.parentKey, list);
  }
  if (!below.has(root)) return undefined;
  const total: Usage = { input: 0, output: 0, costs: [] };
  const seen = new Set<string>();
  const stack = [root];
  while (stack.length) {
    const key = stack.pop()!;
    if (seen.has(key)) continue; // a parent loop in hostile data must not hang the view
    seen.add(key);
    const v = sessions[key];
    if (v) add(total, usageOf(v));
    stack.push(...(below.get(key) ?? []));
  }
  return total;
}

/** The header's badges: this session's usage, its tree's when it has children, its context window. */
export function UsageBadges({ s, own: withOwn }: { s: SessionView; own: boolean }) {
  const own = withOwn ? usageOf(s) : { input: 0, output: 0, costs: [] };
  const sessions = useFleet((st) => st.sessions);
  const tree = useMemo(() => treeUsage(sessions, s.key), [sessions, s.key]);
  return (
    <>
      {reported(own) && (
        <span
          className="badge tokens"
          data-testid="token-usage"
          title="Reported by the agent over all runs of this session"
        >
          {usageText(own)}
        </span>
      )}
      {tree && reported(tree) && usageText(tree) !== usageText(own) && (
        <span
          className="badge tokens"
          data-testid="tree-usage"
          title="This session and every session it started"
        >
          tree: {usageText(tree)}
        </span>
      )}
      {withOwn && s.context && (
        <span
          className="badge"
          data-testid="context-usage"
          title="The agent's context window, as it last reported it"
        >
          context {tokens(s.context.used)} of {tokens(s.context.size)}
        </span>
      )}
    </>
  );
}

/** A fleet row's badge: the session's cost, else its tokens, as reported (nothing for a scripted agent). */
export function RowUsage({ s, tool }: { s: SessionView; tool?: string }) {
  if (tool === 'scripted') return null;
  const u = usageOf(s);
  if (!reported(u)) return null;
  const short = u.costs.length ? moneyList(u.costs) : `${tokens(u.input + u.output)} tok`;
  return (
    <span className="badge tokens" data-testid="row-usage" title={usageText(u)}>
      {short}
    </span>
  );
}
