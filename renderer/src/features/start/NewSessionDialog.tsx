// New session: what runs it (a model agent or an ACP profile), where it runs (this machine or a
// paired node), the working folder (the native picker in the desktop app, a checked path field in
// browser mode; on a node, checked on that machine), an optional label, the first
// message and an optional parent that watches it. The gateway starts it (sessions:start); an agent
// that cannot start comes back here as an error naming the cause, and nothing was created.
import { useMemo } from 'react';
import type { AcpProfileView, AgentView } from '../../../../shared/ipc';
import { sessionTitle } from '../../lib/format';
import { useFleet } from '../../stores/fleet';
import { IsolationField } from '../worktrees/IsolationField';
import { FolderField } from './FolderField';
import { RunsOnField } from './RunsOnField';
import { useNewSession, type Runner } from './useNewSession';

function RunnerField(props: {
  agents: AgentView[];
  profiles: AcpProfileView[];
  value: Runner;
  onChange(r: Runner): void;
}) {
  return (
    <>
      <label htmlFor="start-runner">Runs with</label>
      <select
        id="start-runner"
        data-testid="start-runner"
        value={props.value}
        autoFocus
        onChange={(e) => props.onChange(e.target.value)}
      >
        <optgroup label="Model agents">
          {props.agents.map((a) => (
            <option key={a.id} value={`agent:${a.id}`}>
              {a.name} ({a.provider === 'scripted' ? 'scripted: answers written in advance' : a.provider}
              {a.model ? ` · ${a.model}` : ''})
            </option>
          ))}
        </optgroup>
        <optgroup label="ACP agents">
          {props.profiles.map((p) => (
            <option key={p.id} value={`acp:${p.id}`}>
              {p.name}
            </option>
          ))}
        </optgroup>
      </select>
    </>
  );
}

/** The session that watches the new one: any not archived, and the one asked for even if it is. */
function ParentField({ value, onChange }: { value: string; onChange(key: string): void }) {
  const sessions = useFleet((s) => s.sessions);
  const parents = useMemo(
    () => Object.values(sessions).filter((s) => !s.archived || s.key === value),
    [sessions, value],
  );
  return (
    <>
      <label htmlFor="start-parent">Watched by</label>
      <select
        id="start-parent"
        data-testid="start-parent"
        value={value}
        onChange={(e) => onChange(e.target.value)}
      >
        <option value="">nobody (no parent)</option>
        {parents.map((s) => (
          <option key={s.key} value={s.key}>
            {sessionTitle(s)} — {s.key}
          </option>
        ))}
      </select>
    </>
  );
}

export function NewSessionDialog() {
  const f = useNewSession();
  return (
    <div className="palette-backdrop" onMouseDown={() => !f.starting && f.hide()}>
      <form
        className="dialog start-dialog"
        role="dialog"
        aria-modal="true"
        aria-label="New session"
        data-testid="new-session-dialog"
        onMouseDown={(e) => e.stopPropagation()}
        onKeyDown={(e) => {
          if (e.key === 'Escape' && !f.starting) f.hide();
        }}
        onSubmit={(e) => {
          e.preventDefault();
          if (f.ready) void f.submit();
        }}
      >
        <h2>New session</h2>
        <div className="form-grid">
          <RunnerField agents={f.agents} profiles={f.profiles} value={f.runner} onChange={f.setRunner} />
          <RunsOnField nodes={f.pairedNodes} value={f.node} acp={f.acp} onChange={f.setNode} />
          <FolderField value={f.cwd} node={f.node} onChange={f.setCwd} />
          {!f.node && <IsolationField state={f.isolation} />}
          <label htmlFor="start-label">Label</label>
          <input
            id="start-label"
            data-testid="start-label"
            value={f.label}
            maxLength={200}
            placeholder="optional: what this session is for"
            onChange={(e) => f.setLabel(e.target.value)}
          />
          <ParentField value={f.parentKey} onChange={f.setParentKey} />
          <label htmlFor="start-message">First message</label>
          <textarea
            id="start-message"
            data-testid="start-message"
            rows={5}
            value={f.message}
            placeholder="What should the agent do?"
            onChange={(e) => f.setMessage(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && (e.ctrlKey || e.metaKey) && f.ready) {
                e.preventDefault();
                void f.submit();
              }
            }}
          />
        </div>
        <p className="muted small">
          {f.parentKey
            ? 'The parent watches this session: when you step in, it gets one notice and reconciles.'
            : 'No parent: nobody is told when you step into this session.'}
        </p>
        {f.error && (
          <p className="form-error" role="alert" data-testid="start-error">
            {f.error}
          </p>
        )}
        <div className="inline end">
          <button type="button" onClick={f.hide} disabled={f.starting}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={!f.ready} data-testid="start-submit">
            {f.starting ? 'Starting…' : 'Start session'}
          </button>
        </div>
      </form>
    </div>
  );
}
