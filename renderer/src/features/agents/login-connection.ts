// One login terminal between the page and the gateway: opens the screen (xterm.js, loaded here on
// demand), starts the command at the screen's size (the gateway asks the person first), then
// wires both ways — output by offsets (login-stream.ts), keystrokes and resizes to the pty.
// Disposing closes the command's terminal, also one whose start was still being answered.
import type { GatewayEvent, LoginTerminalView, PushBatch } from '../../../../shared/ipc';
import { call, errorMessage, subscribe } from '../../lib/api';
import { createLoginStream, inputPieces } from './login-stream';
import type { XtermScreen } from './xterm-screen';

export type LoginEnded = { exitCode: number | null; signal: string | null };

export interface LoginHooks {
  started(view: LoginTerminalView): void;
  ended(e: LoginEnded): void;
  sized(cols: number, rows: number): void;
  /** A keystroke the gateway refused (e.g. the command just ended). */
  inputError(message: string): void;
  /** The start failed or was declined. */
  failed(message: string): void;
}

interface State {
  id?: string;
  gone: boolean;
  screen?: XtermScreen;
  typing: Promise<void>;
}

const isLogin = (e: GatewayEvent, sessionKey: string) =>
  (e.type === 'login:output' || e.type === 'login:exit') && e.sessionKey === sessionKey;

/** Keystrokes in order, in pieces the channel takes; resizes (refused ones leave the pty be). */
function senders(st: State, hooks: () => LoginHooks) {
  return {
    send(data: string) {
      if (st.id === undefined) return;
      const id = st.id;
      for (const piece of inputPieces(data))
        st.typing = st.typing.then(() =>
          call('acp:login:input', { id, data: piece }).then(
            () => undefined,
            (err: unknown) => hooks().inputError(errorMessage(err)),
          ),
        );
    },
    resize(cols: number, rows: number) {
      hooks().sized(cols, rows);
      // A size the pty cannot take (macOS, or the command has ended) leaves the pty as it is.
      if (st.id !== undefined)
        void call('acp:login:resize', { id: st.id, cols, rows }).catch(() => undefined);
    },
  };
}

export function connectLoginTerminal(args: {
  sessionKey: string;
  methodId: string;
  mount: HTMLElement;
  dark: boolean;
  hooks: () => LoginHooks;
}): { setDark(dark: boolean): void; fit(): void; dispose(): void } {
  const { sessionKey, methodId, hooks } = args;
  const st: State = { gone: false, typing: Promise.resolve() };
  const early: GatewayEvent[] = [];
  const stream = createLoginStream((data) => st.screen?.write(data));
  const end = (e: LoginEnded) => {
    st.screen?.end();
    hooks().ended(e);
  };
  const catchUp = () =>
    call('acp:login:get', { id: st.id! }).then(
      (v) => {
        stream.catchUp(v);
        if (v.exitCode !== undefined) end({ exitCode: v.exitCode, signal: v.signal ?? null });
      },
      () => undefined,
    );
  const onEvent = (e: GatewayEvent) => {
    if (e.type === 'login:output' && e.id === st.id && !stream.push(e.at, e.data)) void catchUp();
    if (e.type === 'login:exit' && e.id === st.id) end(e);
  };
  const off = subscribe((batch: PushBatch) => {
    if (st.id !== undefined) batch.events.forEach(onEvent);
    else early.push(...batch.events.filter((e) => isLogin(e, sessionKey)));
  });
  const { send, resize } = senders(st, hooks);
  const started = (v: LoginTerminalView) => {
    if (st.gone) return void call('acp:login:close', { id: v.id }).catch(() => undefined);
    st.id = v.id;
    hooks().started(v);
    stream.catchUp(v);
    early.splice(0).forEach(onEvent);
    // The panel may have changed size while the person was asked.
    const now = st.screen;
    if (now && (now.cols !== v.cols || now.rows !== v.rows)) resize(now.cols, now.rows);
    now?.focus();
  };
  import('./xterm-screen')
    .then(({ openXtermScreen }) => {
      if (st.gone) return undefined;
      st.screen = openXtermScreen(args.mount, { dark: args.dark, onData: send, onResize: resize });
      const { cols, rows } = st.screen;
      hooks().sized(cols, rows);
      return call('acp:login:start', { sessionKey, methodId, cols, rows });
    })
    .then((v) => v && started(v))
    .catch((err: unknown) => {
      if (!st.gone) hooks().failed(errorMessage(err));
    });
  return {
    setDark: (dark) => st.screen?.setDark(dark),
    fit: () => st.screen?.fit(),
    dispose() {
      st.gone = true;
      off();
      st.screen?.dispose();
      if (st.id !== undefined) void call('acp:login:close', { id: st.id }).catch(() => undefined);
    },
  };
}
