// A login terminal (issue 28.5): the agent's own login command, run by the gateway on a real pty
// after the person allowed it. Its output shows here live (escape sequences stripped, a plain
// scrolling view), and the line the person types goes to it with Enter. Closing the panel (or
// leaving it) ends the command's whole process tree; when it exits, the panel says its code.
import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { LoginTerminalView } from '../../../../shared/ipc';
import { call, errorMessage, subscribe } from '../../lib/api';

// CSI, OSC and charset sequences; a lone carriage return (the pty's line ends are \r\n).
// eslint-disable-next-line no-control-regex
const ESCAPES = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][A-Za-z0-9]|\x1b[=>]/g;
export const plainText = (raw: string) => raw.replace(ESCAPES, '').replace(/\r\n/g, '\n').replace(/\r/g, '');

export function LoginTerminal({ start, onClose }: { start: LoginTerminalView; onClose(): void }) {
  const [view, setView] = useState(start);
  const [line, setLine] = useState('');
  const [error, setError] = useState<string | null>(null);
  const screen = useRef<HTMLPreElement>(null);
  useEffect(() => {
    const refresh = () => call('acp:login:get', { id: start.id }).then(setView, () => undefined);
    const off = subscribe((batch) => {
      if (
        batch.events.some((e) => (e.type === 'login:output' || e.type === 'login:exit') && e.id === start.id)
      )
        void refresh();
    });
    void refresh(); // what came before this panel subscribed
    return () => {
      off();
      void call('acp:login:close', { id: start.id }).catch(() => undefined);
    };
  }, [start.id]);
  useEffect(() => {
    screen.current?.scrollTo({ top: screen.current.scrollHeight });
  }, [view.output]);
  const ended = view.exitCode !== undefined;
  const send = (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    call('acp:login:input', { id: start.id, data: `${line}\r` }).then(
      () => setLine(''),
      (err: unknown) => setError(errorMessage(err)),
    );
  };
  return (
    <div className="login-terminal" data-testid="login-terminal">
      <div className="small mono">{view.command.join(' ')}</div>
      <pre ref={screen} className="mono login-terminal-screen" data-testid="login-terminal-output">
        {plainText(view.output)}
      </pre>
      {ended ? (
        <p className="small" role="status" data-testid="login-terminal-exit">
          The login command exited with code {view.exitCode ?? `none (${view.signal ?? 'signal'})`}.
          {view.exitCode === 0 ? ' Retry the run.' : ''}
        </p>
      ) : (
        <form onSubmit={send}>
          <input
            aria-label="Type into the login command"
            data-testid="login-terminal-input"
            autoComplete="off"
            value={line}
            onChange={(e) => setLine(e.target.value)}
          />{' '}
          <button type="submit">Send</button>
        </form>
      )}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <button type="button" data-testid="login-terminal-close" onClick={onClose}>
        {ended ? 'Close' : 'Stop and close'}
      </button>
    </div>
  );
}
