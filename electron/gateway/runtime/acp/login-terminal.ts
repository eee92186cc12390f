// Login terminals (issue 28.5): an agent's terminal auth method is its own login command, which
// the person runs in a terminal they see. The gateway asks the person first (the exact command
// line and folder, through consent), then runs it under a real pty (./pty.ts) with the profile's
// environment (its sealed secrets included) in env, never on the command line. Output is pushed
// live and kept bounded, each chunk with its offset; the person's keystrokes (as the page's terminal
// encodes them: control characters and escape sequences included) go to the pty as they are, and
// the panel's size becomes the pty's. Closing the panel, deleting the session or closing the
// gateway kills its whole process tree. Then Retry starts a fresh agent.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { AuthMethod } from '@agentclientprotocol/sdk';
import {
  LOGIN_OUTPUT_KEPT,
  LOGIN_SIZE,
  type LoginTerminalView,
} from '../../../../shared/ipc/login-terminals';
import { GatewayError, invalidArgument, notFound } from '../../errors';
import type { GatewayEvent } from '../../types';
import type { Consent } from '../../trust/consent';
import type { AuthSessions } from './auth';
import { GROUPS, signalTree } from './process-tree';
import { ptyPlan, type PtyPlan, type PtySize } from './pty';

interface Live {
  view: LoginTerminalView;
  proc: ChildProcess;
  plan: PtyPlan;
  known: Set<number>;
}

/** At most this many login terminals at once (one per session). */
const MAX_LIVE = 4;
const KILL_GRACE_MS = 1_000;

type Emit = (e: GatewayEvent) => void;

/** The method's command line and environment, from the profile the session runs. */
function loginCommand(sessions: Pick<AuthSessions, 'auth'>, sessionKey: string, methodId: string) {
  const a = sessions.auth(sessionKey);
  if (!a) throw notFound(`No ACP agent runs in ${sessionKey}`);
  const m = a.methods.find((x: AuthMethod) => x.id === methodId);
  if (!m || !('type' in m) || m.type !== 'terminal')
    throw invalidArgument(`The agent offers no terminal login method ${methodId}`);
  return {
    argv: [a.profile.command, ...a.profile.args, ...(m.args ?? [])],
    env: { ...a.profile.env, ...(m.env ?? {}) },
    name: m.name,
  };
}

/** SIGTERM to the whole tree now, SIGKILL to what is left a moment later. */
function stop(t: Live): void {
  if (t.view.exitCode !== undefined || t.proc.pid === undefined) return;
  const pid = t.proc.pid;
  for (const p of signalTree(pid, 'SIGTERM', t.known)) t.known.add(p);
  setTimeout(() => signalTree(pid, 'SIGKILL', t.known), KILL_GRACE_MS).unref();
}

/** Runs the allowed command line on a pty; its output is kept (bounded) and pushed. */
function spawnOnPty(view: LoginTerminalView, env: Record<string, string>, emit: Emit): Live {
  const plan = ptyPlan(view.command, view);
  const proc = spawn(plan.program, plan.args, {
    cwd: view.cwd,
    env: { ...process.env, ...env, TERM: 'xterm-256color' },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: GROUPS,
  });
  const t: Live = { view, proc, plan, known: new Set() };
  const keep = (data: string) => {
    const at = view.end;
    view.end += data.length;
    view.output = (view.output + data).slice(-LOGIN_OUTPUT_KEPT);
    emit({ type: 'login:output', id: view.id, sessionKey: view.sessionKey, at, data });
  };
  proc.stdout!.setEncoding('utf8').on('data', keep);
  proc.stderr!.setEncoding('utf8').on('data', keep);
  proc.stdin!.on('error', () => undefined); // a write after the exit
  proc.on('error', (err) => keep(`\r\n${err.message}\r\n`));
  proc.on('close', (code, signal) => {
    plan.cleanup();
    signalTree(proc.pid ?? 0, 'SIGKILL', t.known); // anything it left behind
    view.exitCode = code;
    view.signal = signal;
    emit({ type: 'login:exit', id: view.id, sessionKey: view.sessionKey, exitCode: code, signal });
  });
  return t;
}

/** One running login terminal per session, and a few in all. */
function admit(running: Live[], sessionKey: string): void {
  if (running.some((t) => t.view.sessionKey === sessionKey))
    throw new GatewayError('unavailable', 'A login terminal runs for this session already: close it first');
  if (running.length >= MAX_LIVE) throw new GatewayError('unavailable', 'Too many login terminals are open');
}

export function createLoginTerminals(deps: {
  sessions: Pick<AuthSessions, 'auth'>;
  cwdOf(sessionKey: string): string;
  confirm: Consent['confirm'];
  emit: Emit;
}) {
  const terms = new Map<string, Live>();
  const get = (id: string) => {
    const t = terms.get(id);
    if (!t) throw notFound(`Unknown login terminal: ${id}`);
    return t;
  };
  const running = () => [...terms.values()].filter((t) => t.view.exitCode === undefined);
  /** A terminal whose command still runs. */
  const stillRunning = (id: string) => {
    const live = get(id);
    if (live.view.exitCode !== undefined)
      throw new GatewayError('unavailable', 'The login command has ended');
    return live;
  };

  return {
    /** Asks the person (command line and folder), then runs the login command on a pty. */
    async start(
      sessionKey: string,
      methodId: string,
      size: Partial<PtySize> = {},
    ): Promise<LoginTerminalView> {
      const { argv, env, name } = loginCommand(deps.sessions, sessionKey, methodId);
      admit(running(), sessionKey);
      const cwd = deps.cwdOf(sessionKey);
      await deps.confirm({
        kind: 'terminal',
        title: `${name}: run the agent's login command in a terminal`,
        command: { program: argv[0]!, args: argv.slice(1), cwd, env },
        sessionKey,
      });
      const id = `login-${randomUUID()}`;
      const cols = size.cols ?? LOGIN_SIZE.cols.default;
      const rows = size.rows ?? LOGIN_SIZE.rows.default;
      const view = { id, sessionKey, methodId, command: argv, cwd, output: '', end: 0, cols, rows };
      const t = spawnOnPty(view, env, deps.emit);
      terms.set(id, t);
      return { ...t.view };
    },

    get: (id: string): LoginTerminalView => ({ ...get(id).view }),

    /** The person's keystrokes (as a terminal encodes them), to the login command's pty. */
    input(id: string, data: string): void {
      stillRunning(id).proc.stdin!.write(data);
    },

    /** The panel's new size, for the pty (the program is told with SIGWINCH). */
    async resize(id: string, size: PtySize): Promise<void> {
      const live = stillRunning(id);
      if (!live.plan.resize)
        throw new GatewayError('unavailable', 'This terminal keeps the size it started with on this system');
      await live.plan.resize(size);
      Object.assign(live.view, { cols: size.cols, rows: size.rows });
    },

    /** The panel closed: the whole process tree goes, and the terminal is forgotten. */
    close(id: string): void {
      stop(get(id));
      terms.delete(id);
    },

    /** The session was deleted: its terminals go with it. */
    closeSession(sessionKey: string): void {
      for (const t of [...terms.values()]) if (t.view.sessionKey === sessionKey) this.close(t.view.id);
    },

    closeAll(): void {
      for (const t of terms.values()) stop(t);
      terms.clear();
    },
  };
}

export type LoginTerminals = ReturnType<typeof createLoginTerminals>;
