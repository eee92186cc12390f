// Settings → Nodes: other machines whose agent sessions Sightline reads, each reached by one SSH
// destination (user@host or a Host of ~/.ssh/config) with the system's ssh. Add, rename, remove,
// and each one's state: online, or offline since when and why; last check; sessions seen.
import { useEffect, useState } from 'react';
import type { ArgsOf, NodeInfo } from '../../../../shared/ipc';
import { useNodes } from '../../stores/nodes';
import { errorMessage } from '../../lib/api';
import { dateTime } from '../../lib/format';
import { Checkbox } from '../../components/Checkbox';
import { AgentGrace } from './AgentGrace';

/** A command typed in one line: words separated by spaces (no shell, no quoting). */
const words = (line: string) => line.split(/\s+/).filter(Boolean);

interface NodeDraft {
  ssh: string;
  name: string;
  /** Words separated by spaces; empty: Sightline copies its node file and runs it with node. */
  nodeCommand: string;
  allowContinue: boolean;
}

const EMPTY: NodeDraft = { ssh: '', name: '', nodeCommand: '', allowContinue: false };

/** What nodes:add gets: only the fields the person filled in. */
function addInput(d: NodeDraft): ArgsOf<'nodes:add'> {
  const cmd = words(d.nodeCommand);
  return {
    ssh: d.ssh.trim(),
    ...(d.name.trim() ? { name: d.name.trim() } : {}),
    ...(cmd.length ? { nodeCommand: cmd } : {}),
    ...(d.allowContinue ? { allowContinue: d.allowContinue } : {}),
  };
}

/** How Sightline reaches the machine and what it runs there. */
function DestinationFields({ d, set }: { d: NodeDraft; set(patch: Partial<NodeDraft>): void }) {
  return (
    <>
      <label htmlFor="node-ssh">SSH destination</label>
      <input
        id="node-ssh"
        data-testid="node-ssh"
        value={d.ssh}
        placeholder="user@devbox or a Host from ~/.ssh/config"
        onChange={(e) => set({ ssh: e.target.value })}
        maxLength={300}
        required
      />
      <label htmlFor="node-name">Name (optional)</label>
      <input
        id="node-name"
        data-testid="node-name"
        value={d.name}
        placeholder="the machine's own name"
        onChange={(e) => set({ name: e.target.value })}
        maxLength={100}
      />
      <label htmlFor="node-command">Node command there (optional)</label>
      <input
        id="node-command"
        data-testid="node-command"
        className="mono"
        value={d.nodeCommand}
        placeholder="default: Sightline copies its node file and runs it with node"
        onChange={(e) => set({ nodeCommand: e.target.value })}
      />
    </>
  );
}

function AddNode() {
  const add = useNodes((s) => s.add);
  const adding = useNodes((s) => s.adding);
  const [d, setDraft] = useState(EMPTY);
  const set = (patch: Partial<NodeDraft>) => setDraft((old) => ({ ...old, ...patch }));
  const [error, setError] = useState<string | null>(null);
  return (
    <form
      className="agent-form"
      data-testid="node-form"
      onSubmit={(e) => {
        e.preventDefault();
        setError(null);
        add(addInput(d)).then(
          () => setDraft(EMPTY),
          (err: unknown) => setError(errorMessage(err)),
        );
      }}
    >
      <DestinationFields d={d} set={set} />
      <Checkbox
        className="small"
        testId="node-allow-continue"
        checked={d.allowContinue}
        onChange={(allowContinue) => set({ allowContinue })}
      >
        Allow &quot;continue&quot;: Sightline may run Claude Code or Codex there to send into an adopted
        session
      </Checkbox>
      <div className="inline">
        <button type="submit" className="primary" disabled={adding || !d.ssh.trim()} data-testid="node-add">
          {adding ? 'Connecting…' : 'Add node'}
        </button>
      </div>
      {error && (
        <p className="form-error" role="alert" data-testid="node-error">
          {error}
        </p>
      )}
    </form>
  );
}

function NodeRow({ node }: { node: NodeInfo }) {
  const rename = useNodes((s) => s.rename);
  const remove = useNodes((s) => s.remove);
  const [name, setName] = useState(node.name);
  const [confirm, setConfirm] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const fail = (err: unknown) => setError(errorMessage(err));
  const off = node.providers?.filter((p) => !p.available) ?? [];
  return (
    <li data-testid="node" data-node-id={node.id} data-state={node.state}>
      <div className="inline">
        <input
          aria-label="Node name"
          data-testid="node-rename"
          value={name}
          maxLength={100}
          onChange={(e) => setName(e.target.value)}
          onBlur={() => {
            if (name.trim() && name.trim() !== node.name) rename(node.id, name.trim()).catch(fail);
          }}
        />
        <span className="mono small">{node.ssh ?? node.command?.join(' ')}</span>
        <span className={node.state === 'online' ? 'small ok-text' : 'small muted'} data-testid="node-state">
          {node.state === 'online'
            ? 'online'
            : `offline${node.offlineSince ? ` since ${dateTime(node.offlineSince)}` : ''}`}
        </span>
        {confirm ? (
          <>
            <button
              type="button"
              className="primary"
              data-testid="node-remove-confirm"
              onClick={() => remove(node.id).catch(fail)}
            >
              Remove (its adopted sessions stay, no longer watched)
            </button>
            <button type="button" className="quiet" onClick={() => setConfirm(false)}>
              Cancel
            </button>
          </>
        ) : (
          <button type="button" data-testid="node-remove" onClick={() => setConfirm(true)}>
            Remove…
          </button>
        )}
      </div>
      <p className="muted small" data-testid="node-facts">
        {node.lastCheckAt ? `last check ${dateTime(node.lastCheckAt)}` : 'not checked yet'}
        {node.sessions !== undefined && ` · ${node.sessions} session${node.sessions === 1 ? '' : 's'} seen`}
        {node.nodeVersion && ` · Node.js ${node.nodeVersion}`}
        {node.allowContinue && ' · continue allowed'}
      </p>
      {off.map((p) => (
        <p key={p.id} className="muted small">
          {p.label}: {p.reason ?? 'not served'}
        </p>
      ))}
      {node.state === 'offline' && node.lastError && (
        <p className="small muted" data-testid="node-last-error">
          {node.lastError}
        </p>
      )}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </li>
  );
}

export function Nodes() {
  const nodes = useNodes((s) => s.nodes);
  const loaded = useNodes((s) => s.loaded);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    useNodes
      .getState()
      .load()
      .catch((err: unknown) => setError(errorMessage(err)));
  }, []);
  return (
    <section className="settings-section" data-testid="nodes" data-ready={loaded ? 'true' : 'false'}>
      <h2>Nodes</h2>
      <p className="muted small">
        Your other machines: Sightline reaches each one with your ssh (keys, agent, known_hosts and
        ~/.ssh/config as they are), copies its small node file there and reads that machine&apos;s Claude
        Code, Codex, OpenCode and Pi sessions, read-only. The machine needs Node.js 20 or newer.
      </p>
      <AgentGrace />
      {loaded && nodes.length === 0 && <p className="empty-note">No other machine yet.</p>}
      <ul className="profile-list">
        {nodes.map((n) => (
          <NodeRow key={n.id} node={n} />
        ))}
      </ul>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <AddNode />
    </section>
  );
}
