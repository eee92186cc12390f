// New session: what runs it (a model agent or an ACP profile), where it runs (this machine or a
// paired node), the working folder (the native picker in the desktop app, a checked path field in
// browser mode; on a node, checked on that machine), an optional label, the first
// message and an optional parent that watches it. The gateway starts it (sessions:start); an agent
// that cannot start comes back here as an error naming the cause, and nothing was created.
import { useEffect, useMemo, useState } from 'react';
import type { AgentView, FolderCheck } from '../../../../shared/ipc';
import { errorMessage } from '../../lib/api';
import { sessionTitle } from '../../lib/format';
import { useFleet } from '../../stores/fleet';
import { useProfiles } from '../../stores/profiles';
import { useStart } from '../../stores/start';
import { useUi } from '../../stores/ui';
import { IsolationField, useIsolation } from '../worktrees/IsolationField';
import { RunsOnField, usePairedNodes } from './RunsOnField';

/** `agent:<id>` or `acp:<id>`: one select for both kinds of runner. */
type Runner = string;

function FolderField({ value, node, onChange }: { value: string; node: string; onChange(v: string): void }) {
  const app = useUi((s) => s.app);
  const check = useStart((s) => s.check);
  const pick = useStart((s) => s.pick);
  // The answer for the path it was asked about; shown only while that is what the field says.
  const [checked, setChecked] = useState<{ asked: string; result: FolderCheck } | null>(null);
  const [pickError, setPickError] = useState<string | null>(null);
  useEffect(() => {
    const asked = value.trim();
    if (!asked) return;
    let live = true;
    const key = `${node}\0${asked}`;
    const timer = setTimeout(() => {
      check(asked, node || undefined).then(
        (result) => live && setChecked({ asked: key, result }),
        (err: unknown) =>
          live && setChecked({ asked: key, result: { path: asked, ok: false, reason: errorMessage(err) } }),
      );
    }, 200);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [value, node, check]);
  const result = checked && checked.asked === `${node}\0${value.trim()}` ? checked.result : null;
  return (
    <>
      <label htmlFor="start-cwd">Working folder</label>
      <div>
        <div className="inline">
          <input
            id="start-cwd"
            data-testid="start-cwd"
            className="mono grow"
            value={value}
            placeholder={
              node
                ? '/path/to/the/project on that machine'
                : '/path/to/your/project (empty: a fresh folder of its own)'
            }
            onChange={(e) => onChange(e.target.value)}
          />
          {app?.mode === 'electron' && !node && (
            <button
              type="button"
              data-testid="start-cwd-browse"
              onClick={() =>
                pick().then(
                  (p) => p && onChange(p),
                  (err: unknown) => setPickError(errorMessage(err)),
                )
              }
            >
              Browse…
            </button>
          )}
        </div>
        {result && (
          <p className={result.ok ? 'field-note ok' : 'field-note bad'} data-testid="start-cwd-check">
            {result.ok ? `✓ ${result.path}` : result.reason}
          </p>
        )}
        {pickError && <p className="field-note bad">{pickError}</p>}
      </div>
    </>
  );
}

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

export function NewSessionDialog() {
  const preselected = useStart((s) => s.parentKey);
  const hide = useStart((s) => s.hide);
  const start = useStart((s) => s.start);
  const agents = useFleet((s) => s.agents);
  const sessions = useFleet((s) => s.sessions);
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

  const parents = useMemo(
    () => Object.values(sessions).filter((s) => !s.archived || s.key === parentKey),
    [sessions, parentKey],
  );
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
    const [kind, id] = [chosen.slice(0, chosen.indexOf(':')), chosen.slice(chosen.indexOf(':') + 1)];
    try {
      const view = await start({
        ...(kind === 'acp' ? { acpProfileId: id } : { agentId: id }),
        message,
        ...(cwd.trim() ? { cwd: cwd.trim() } : {}),
        ...(label.trim() ? { label: label.trim() } : {}),
        ...(parentKey ? { parentKey } : {}),
        ...(onNode ? { node: onNode } : cwd.trim() ? isolation.args : {}),
      });
      rememberRunner(chosen);
      hide();
      openSession(view.key, 'transcript');
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setStarting(false);
    }
  };

  return (
    <div className="palette-backdrop" onMouseDown={() => !starting && hide()}>
      <form
        className="dialog start-dialog"
        role="dialog"
        aria-modal="true"
        aria-label="New session"
        data-testid="new-session-dialog"
        onMouseDown={(e) => e.stopPropagation()}
        onKeyDown={(e) => {
          if (e.key === 'Escape' && !starting) hide();
        }}
        onSubmit={(e) => {
          e.preventDefault();
          if (ready) void submit();
        }}
      >
        <h2>New session</h2>
        <div className="form-grid">
          <label htmlFor="start-runner">Runs with</label>
          <select
            id="start-runner"
            data-testid="start-runner"
            value={chosen}
            autoFocus
            onChange={(e) => setRunner(e.target.value)}
          >
            <optgroup label="Model agents">
              {agents.map((a) => (
                <option key={a.id} value={`agent:${a.id}`}>
                  {a.name} ({a.provider === 'scripted' ? 'scripted: answers written in advance' : a.provider}
                  {a.model ? ` · ${a.model}` : ''})
                </option>
              ))}
            </optgroup>
            <optgroup label="ACP agents">
              {profiles.map((p) => (
                <option key={p.id} value={`acp:${p.id}`}>
                  {p.name}
                </option>
              ))}
            </optgroup>
          </select>
          <RunsOnField nodes={pairedNodes} value={onNode} acp={acp} onChange={setNode} />
          <FolderField value={cwd} node={onNode} onChange={setCwd} />
          {!onNode && <IsolationField state={isolation} />}
          <label htmlFor="start-label">Label</label>
          <input
            id="start-label"
            data-testid="start-label"
            value={label}
            maxLength={200}
            placeholder="optional: what this session is for"
            onChange={(e) => setLabel(e.target.value)}
          />
          <label htmlFor="start-parent">Watched by</label>
          <select
            id="start-parent"
            data-testid="start-parent"
            value={parentKey}
            onChange={(e) => setParentKey(e.target.value)}
          >
            <option value="">nobody (no parent)</option>
            {parents.map((s) => (
              <option key={s.key} value={s.key}>
                {sessionTitle(s)} — {s.key}
              </option>
            ))}
          </select>
          <label htmlFor="start-message">First message</label>
          <textarea
            id="start-message"
            data-testid="start-message"
            rows={5}
            value={message}
            placeholder="What should the agent do?"
            onChange={(e) => setMessage(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && (e.ctrlKey || e.metaKey) && ready) {
                e.preventDefault();
                void submit();
              }
            }}
          />
        </div>
        <p className="muted small">
          {parentKey
            ? 'The parent watches this session: when you step in, it gets one notice and reconciles.'
            : 'No parent: nobody is told when you step into this session.'}
        </p>
        {error && (
          <p className="form-error" role="alert" data-testid="start-error">
            {error}
          </p>
        )}
        <div className="inline end">
          <button type="button" onClick={hide} disabled={starting}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={!ready} data-testid="start-submit">
            {starting ? 'Starting…' : 'Start session'}
          </button>
        </div>
      </form>
    </div>
  );
}
