// "Continue in Sightline": run the upstream CLI that a provider names (ProviderSource
// .continueCommand), spawned without a shell, in the folder recorded at adoption and only there
// (or on the paired node that holds the session).
// The text is remembered first, so the monitor recognises its echo in the upstream transcript as
// Sightline's own and never reports it as human activity.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { GatewayError, notFound } from '../errors';
import type { NodesService } from '../nodes/service';
import type { Consent } from '../trust/consent';
import type { Sessions } from '../types';
import type { Link, LinkRepo } from './links';
import type { ProviderModule, ProviderSource, VisibleMessage } from './provider';
import { checkThreadId } from './thread-ids';

/** The executable's path on PATH, or undefined. */
export function findOnPath(command: string, env: NodeJS.ProcessEnv): string | undefined {
  const dirs = (env.PATH ?? '').split(path.delimiter).filter(Boolean);
  const exts = process.platform === 'win32' ? (env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';') : [''];
  for (const d of dirs)
    for (const e of exts) {
      const p = path.join(d, command + e);
      try {
        fs.accessSync(p, fs.constants.X_OK);
        if (fs.statSync(p).isFile()) return p;
      } catch {
        // not here
      }
    }
  return undefined;
}

export class CliMissingError extends Error {}

/** The CLI's path, or the error that says it is not installed. */
export function cliProgram(command: string, env: NodeJS.ProcessEnv): string {
  const bin = findOnPath(command, env);
  if (!bin)
    throw new CliMissingError(
      `Cannot continue this session: the "${command}" command is not installed (not found on PATH)`,
    );
  return bin;
}

/**
 * The folder a continue runs in: the session's working folder as the catalog showed it when the
 * person adopted it (never re-read from the transcript), and it must still exist.
 */
export function continueFolder(cwd: string | null): string {
  if (!cwd)
    throw new GatewayError(
      'unavailable',
      'Cannot continue this session: its working folder was not recorded when it was adopted (adopt it again from the catalog)',
    );
  let dir = false;
  try {
    dir = path.isAbsolute(cwd) && fs.statSync(cwd).isDirectory();
  } catch {
    dir = false;
  }
  if (!dir)
    throw new GatewayError('unavailable', `Cannot continue this session: its folder ${cwd} does not exist`);
  return cwd;
}

const OUTPUT_CAP = 256 * 1024;

export function runCli(
  program: string,
  args: string[],
  opts: { env: NodeJS.ProcessEnv; cwd: string; timeoutMs?: number },
): Promise<{ stdout: string }> {
  const name = path.basename(program);
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, {
      shell: false,
      env: opts.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      cwd: opts.cwd,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      if (stdout.length < OUTPUT_CAP) stdout += d.toString('utf8');
    });
    child.stderr.on('data', (d: Buffer) => {
      if (stderr.length < OUTPUT_CAP) stderr += d.toString('utf8');
    });
    const timer = setTimeout(() => child.kill('SIGTERM'), opts.timeoutMs ?? 30 * 60 * 1000);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`Cannot run "${name}": ${err.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve({ stdout });
      else {
        const why = signal ? `was stopped by ${signal}` : `exited with code ${String(code)}`;
        const tail = stderr.trim().split('\n').slice(-3).join(' ').slice(0, 500);
        reject(new Error(`"${name}" ${why}${tail ? `: ${tail}` : ''}`));
      }
    });
  });
}

export interface ContinueDeps {
  links: LinkRepo;
  nodes: Pick<NodesService, 'isNode' | 'get'>;
  providers: ReadonlyMap<string, { module: ProviderModule; source: ProviderSource }>;
  sessions: Pick<Sessions, 'get'>;
  env: NodeJS.ProcessEnv;
  now: () => number;
  importTranscript(sessionKey: string, messages: VisibleMessage[]): void;
  /** Live transcripts are on: the monitor reads the tool's reply from its own transcript. */
  live: boolean;
  /** The continue on a paired node (its CLI runs there); resolves to the CLI's printed reply. */
  remoteContinue(link: Link, text: string): Promise<string>;
  rememberOwnText(sessionKey: string, text: string): void;
  /** Starts a monitor check (the reply is read from the transcript by it). */
  check(): void;
  confirm?: Consent['confirm'];
}

/**
 * "Continue in Sightline" for one adopted session: the person allows the provider's CLI in the
 * session's folder (on this machine or on its node), the text is remembered as Sightline's own,
 * the CLI runs, and the text and its reply join Sightline's transcript.
 */
export function createContinue(deps: ContinueDeps) {
  const { links } = deps;

  /** The sent text and the CLI's printed reply join Sightline's transcript. */
  function imported(sessionKey: string, text: string, stdout: string): void {
    const at = deps.now();
    const messages: VisibleMessage[] = [{ role: 'user', actorType: 'human', text, createdAt: at }];
    // With live transcripts the reply comes from the tool's own transcript, once, at the check
    // started here; the CLI's printed copy is kept only for a link the monitor does not read.
    const live = deps.live && links.watched().some((l) => l.sessionKey === sessionKey);
    if (stdout.trim() && !live)
      messages.push({ role: 'assistant', actorType: 'agent', text: stdout.trim(), createdAt: at });
    deps.importTranscript(sessionKey, messages);
    if (live) deps.check();
  }

  return async function continueIn(sessionKey: string, text: string): Promise<void> {
    if (typeof text !== 'string' || text.trim() === '') throw new Error('text is required');
    const link = links.get(sessionKey);
    if (!link)
      throw notFound(`Unknown sessionKey: ${sessionKey} (not an adopted session with an upstream link)`);
    const p = deps.providers.get(link.provider);
    // Checked again here: a link may come from before ids were checked, or from another gateway.
    const cmd = p?.source.continueCommand?.(checkThreadId(p.module, link.threadId), text);
    if (!p || !cmd)
      throw new Error(
        `Continue in Sightline is not available for ${link.provider} sessions yet: continue it in ${p?.module.label ?? link.provider} itself`,
      );
    const label = deps.sessions.get(sessionKey)?.label ?? link.threadId;
    if (deps.nodes.isNode(link.hostId)) {
      // On a paired node: its CLI runs there (only on a node started with --allow-continue), after
      // the person allowed that CLI in that folder on that node for this session.
      const node = deps.nodes.get(link.hostId)?.name ?? link.hostId;
      await deps.confirm?.(
        {
          kind: 'continue',
          title: `Continue the ${p.module.label} session "${label}" with its CLI on the node "${node}"`,
          command: { program: cmd.command, args: cmd.args, ...(link.cwd ? { cwd: link.cwd } : {}) },
          sessionKey,
        },
        { remember: `continue:${sessionKey}:${link.hostId}:${cmd.command}:${link.cwd ?? ''}` },
      );
      deps.rememberOwnText(sessionKey, text);
      return imported(sessionKey, text, await deps.remoteContinue(link, text));
    }
    const program = cliProgram(cmd.command, deps.env);
    const cwd = continueFolder(link.cwd);
    // The person allows this CLI in this folder for this session once (the text changes each time).
    await deps.confirm?.(
      {
        kind: 'continue',
        title: `Continue the ${p.module.label} session "${label}" with its CLI`,
        command: { program, args: cmd.args, cwd },
        sessionKey,
      },
      { remember: `continue:${sessionKey}:${program}:${cwd}` },
    );
    deps.rememberOwnText(sessionKey, text);
    const { stdout } = await runCli(program, cmd.args, { env: deps.env, cwd });
    imported(sessionKey, text, stdout);
  };
}
