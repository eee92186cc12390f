// New session's state: the fields, the runner it starts with unless the person picks another, and
// starting it (sessions:start). An agent that cannot start comes back as `error` and nothing was
// created.
import { useEffect, useState } from 'react';
import type { AgentView, ArgsOf } from '../../../../shared/ipc';
import { errorMessage } from '../../lib/api';
import { useFleet } from '../../stores/fleet';
import { useProfiles } from '../../stores/profiles';
import { useStart } from '../../stores/start';
import { useUi } from '../../stores/ui';
import { useIsolation, type IsolationState } from '../worktrees/IsolationField';
import { usePairedNodes } from './RunsOnField';

/** `agent:<id>` or `acp:<id>`: one select for both kinds of runner. */
export type Runner = string;

const LAST_RUNNER = 'sightline.lastRunner';

function rememberRunner(runner: Runner): void {
  try {
    window.localStorage.setItem(LAST_RUNNER, runner);
  } catch {
    // only the remembered default is lost
  }
}

/**
 * What a new session runs with unless the person picks: the runner they last started one with,
 * else an ACP agent, else a model agent with a real provider; a scripted agent only when nothing
 * else is set up (and it says it is scripted).
 */
function defaultRunner(agents: AgentView[], profiles: { id: string }[]): Runner {
  const all = [...profiles.map((p) => `acp:${p.id}`), ...agents.map((a) => `agent:${a.id}`)];
  let last: string | null = null;
  try {
    last = window.localStorage.getItem(LAST_RUNNER);
  } catch {
    // no storage: no remembered runner
  }
  if (last && all.includes(last)) return last;
  const real = agents.find((a) => a.provider !== 'scripted');
  if (profiles[0]) return `acp:${profiles[0].id}`;
  if (real) return `agent:${real.id}`;
  return agents[0] ? `agent:${agents[0].id}` : '';
}

interface Fields {
  runner: Runner;
  message: string;
  cwd: string;
  label: string;
  parentKey: string;
  /** The connected node it runs on, '' for this machine. */
  node: string;
  isolation: IsolationState;
}

/** What sessions:start gets: only the fields the person filled in. */
function startArgs(f: Fields): ArgsOf<'sessions:start'> {
  const [kind, id] = [f.runner.slice(0, f.runner.indexOf(':')), f.runner.slice(f.runner.indexOf(':') + 1)];
  const cwd = f.cwd.trim();
  return {
    ...(kind === 'acp' ? { acpProfileId: id } : { agentId: id }),
    message: f.message,
    ...(cwd ? { cwd } : {}),
    ...(f.label.trim() ? { label: f.label.trim() } : {}),
    ...(f.parentKey ? { parentKey: f.parentKey } : {}),
    ...(f.node ? { node: f.node } : cwd ? f.isolation.args : {}),
  };
}

export function useNewSession() {
  const preselected = useStart((s) => s.parentKey);
  const hide = useStart((s) => s.hide);
  const start = useStart((s) => s.start);
  const agents = useFleet((s) => s.agents);
  const profiles = useProfiles((s) => s.profiles);
  const openSession = useUi((s) => s.openSession);
  const [runner, setRunner] = useState<Runner>('');
  const [node, setNode] = useState('');
  const pairedNodes = usePairedNodes();
  const [cwd, setCwd] = useState('');
  const [label, setLabel] = useState('');
  const [message, setMessage] = useState('');
  const [parentKey, setParentKey] = useState(preselected ?? '');
  const [starting, setStarting] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    void useProfiles
      .getState()
      .load()
      .catch((err: unknown) => setError(errorMessage(err)));
  }, []);

  const chosen = runner || defaultRunner(agents, profiles);
  const acp = chosen.startsWith('acp:');
  // A node only for an ACP agent, and only while it is connected.
  const onNode = acp && pairedNodes.some((n) => n.id === node && n.state === 'online') ? node : '';
  // A folder on a node is not probed here (it is not on this machine); the agent works in it in place.
  const isolation = useIsolation(onNode ? '' : cwd, acp);
  const ready = chosen !== '' && message.trim() !== '' && !starting && (!onNode || cwd.trim() !== '');

  const submit = async () => {
    setStarting(true);
    setError(null);
    try {
      const view = await start(
        startArgs({ runner: chosen, message, cwd, label, parentKey, node: onNode, isolation }),
      );
      rememberRunner(chosen);
      hide();
      openSession(view.key, 'transcript');
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setStarting(false);
    }
  };

  return {
    agents,
    profiles,
    pairedNodes,
    runner: chosen,
    setRunner,
    acp,
    node: onNode,
    setNode,
    isolation,
    cwd,
    setCwd,
    label,
    setLabel,
    message,
    setMessage,
    parentKey,
    setParentKey,
    starting,
    error,
    ready,
    submit,
    hide,
  };
}
