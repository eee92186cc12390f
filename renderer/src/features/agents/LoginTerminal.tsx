// A login terminal (issue 28.5): the agent's own login command, run by the gateway on a real pty
// after the person allowed it, shown in a real terminal (xterm.js, loaded when this panel opens,
// never at first paint). What the person types goes to the pty as a terminal sends it — arrows,
// Ctrl-C, Enter, paste (Ctrl+C with a selection copies it instead). The pty starts with the
// panel's size and follows it. The output: what the gateway kept, once, then the pushed chunks by
// their offsets. Closing the panel (or leaving it) ends the command's whole process tree; when it
// exits, the panel says its code. The wiring is login-connection.ts.
import { useEffect, useRef, useState } from 'react';
import type { LoginTerminalView } from '../../../../shared/ipc';
import { useDarkTheme } from '../../components/ThemeToggle';
import { connectLoginTerminal, type LoginEnded, type LoginHooks } from './login-connection';

interface Props {
  sessionKey: string;
  methodId: string;
  onClose(): void;
  /** The start failed or was declined: the message, and the panel goes. */
  onFailed(message: string): void;
}

export function LoginTerminal(props: Props) {
  const { sessionKey, methodId } = props;
  const mount = useRef<HTMLDivElement>(null);
  const dark = useDarkTheme();
  const [view, setView] = useState<LoginTerminalView | null>(null);
  const [ended, setEnded] = useState<LoginEnded | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [size, setSize] = useState<{ cols: number; rows: number } | null>(null);
  const hooks = useRef<LoginHooks | null>(null);
  const darkAtOpen = useRef(dark);
  const connection = useRef<ReturnType<typeof connectLoginTerminal> | null>(null);
  useEffect(() => {
    hooks.current = {
      started: setView,
      ended: setEnded,
      sized: (cols, rows) => setSize({ cols, rows }),
      inputError: setError,
      failed: props.onFailed,
    };
  }, [props.onFailed]);
  useEffect(() => {
    const c = connectLoginTerminal({
      sessionKey,
      methodId,
      mount: mount.current!,
      dark: darkAtOpen.current,
      hooks: () => hooks.current!,
    });
    connection.current = c;
    const observer = new ResizeObserver(() => c.fit());
    observer.observe(mount.current!);
    return () => {
      observer.disconnect();
      c.dispose();
      connection.current = null;
    };
  }, [sessionKey, methodId]);
  useEffect(() => connection.current?.setDark(dark), [dark]);
  const state = ended ? 'exited' : view ? 'running' : 'starting';
  return (
    <div className="login-terminal" data-testid="login-terminal" data-state={state}>
      {!view && <div className="small">Waiting for your answer…</div>}
      <div
        ref={mount}
        className={view ? 'login-terminal-screen' : 'login-terminal-screen waiting'}
        data-testid="login-terminal-screen"
        data-cols={size?.cols}
        data-rows={size?.rows}
      />
      {ended && (
        <p className="small" role="status" data-testid="login-terminal-exit">
          The login command exited with code {ended.exitCode ?? `none (${ended.signal ?? 'signal'})`}.
          {ended.exitCode === 0 ? ' Retry the run.' : ''}
        </p>
      )}
      {error && !ended && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <button type="button" data-testid="login-terminal-close" onClick={props.onClose}>
        {ended ? 'Close' : 'Stop and close'}
      </button>
    </div>
  );
}
