// Starting a node (issue 19.2). A command node runs a local command line (tests, or a second set
// of roots on this machine). An SSH node runs the system's OpenSSH client,
// `ssh -T -o BatchMode=yes -- <destination> <remote command>`, the way VS Code Remote-SSH and
// Zed reach a remote machine: keys, agents, known_hosts and jump hosts are SSH's. Without a
// command of the person's own, the remote command runs the node file this Sightline bundles from
// ~/.sightline-node/ with the remote's `node`; when that exact file is not there (first time, or
// an older one), it is copied over the same SSH and started again.
//
// Destinations and commands are hostile input: a destination is validated and passed after
// `--`, so it can never be read as an ssh option; every word of the remote command is quoted for
// the remote shell; nothing runs through a local shell.
import { SSH_DESTINATION, SSH_DESTINATION_HINT } from '../../../shared/ssh';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { spawn } from 'node:child_process';
import { NodeConnection, NodeOfflineError, describeExit, type ExitInfo } from './connection';
import { EXIT } from './protocol';
import type { NodeHello } from './protocol';

export interface NodeSpec {
  ssh?: string;
  command?: string[];
  /** With ssh: the command that runs the node on the remote (default: the bundled file). */
  nodeCommand?: string[];
  /** With ssh and the bundled file: start it with --allow-continue. */
  allowContinue?: boolean;
}

export interface LaunchOptions {
  /** The ssh client and options before ours (default ["ssh"]; tests add -F <config>). */
  sshCommand: readonly string[];
  /** The node file to install on remotes (out/node/sightline-node.mjs). */
  bundle?: string;
  helloTimeoutMs: number;
  env?: NodeJS.ProcessEnv;
}

/** A node that could not be started or reached, with the reason for people. */
export class NodeStartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NodeStartError';
  }
}

export function checkDestination(dest: unknown): string {
  if (typeof dest !== 'string' || !SSH_DESTINATION.test(dest))
    throw new NodeStartError(
      `Not an SSH destination: ${JSON.stringify(String(dest).slice(0, 100))} (use ${SSH_DESTINATION_HINT})`,
    );
  return dest;
}

/** Checks a command line (local argv or remote words): non-empty strings without NUL. */
export function checkCommand(cmd: unknown, what: string): string[] {
  if (
    !Array.isArray(cmd) ||
    cmd.length === 0 ||
    cmd.length > 64 ||
    !cmd.every((a) => typeof a === 'string' && a.length <= 4096 && !a.includes('\0')) ||
    (cmd[0] as string).trim() === ''
  )
    throw new NodeStartError(`${what} must be a non-empty list of arguments`);
  return cmd as string[];
}

/** One word for a POSIX shell: single-quoted unless it is plainly safe. */
export function shQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The bundled node file's content id: part of its installed name, so an older one is never run. */
export function bundleId(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex').slice(0, 16);
}

const DIR = '$HOME/.sightline-node';

/** The remote script that runs the installed node file, or says what is missing by exit code. */
function runScript(id: string, allowContinue: boolean): string {
  const file = `${DIR}/sightline-node-${id}.mjs`;
  return [
    `command -v node >/dev/null 2>&1 || { echo "sightline: no node command on this machine" >&2; exit ${EXIT.noNode}; }`,
    `[ -f "${file}" ] || exit ${EXIT.noFile}`,
    `exec node "${file}" --stdio${allowContinue ? ' --allow-continue' : ''}`,
  ].join('; ');
}

/** The remote script that installs the node file from stdin (written aside, then renamed). */
function installScript(id: string): string {
  const file = `${DIR}/sightline-node-${id}.mjs`;
  return [
    'umask 077',
    `mkdir -p "${DIR}"`,
    `cat > "${file}.part"`,
    `mv -f "${file}.part" "${file}"`,
    // Older node files go: the newest is the one this gateway runs.
    `for f in "${DIR}"/sightline-node-*.mjs; do [ "$f" = "${file}" ] || rm -f "$f"; done`,
  ].join(' && ');
}

function sshArgv(o: Pick<LaunchOptions, 'sshCommand'>, dest: string, remote: string): string[] {
  return [...o.sshCommand, '-T', '-o', 'BatchMode=yes', '-o', 'ServerAliveInterval=15', '--', dest, remote];
}

/**
 * The command line of a node whose command the person named (a local command, or a node command
 * run over SSH): it goes through their consent before it first runs. Undefined for an SSH node
 * that runs Sightline's own node file.
 */
export function namedCommandLine(spec: NodeSpec, o: Pick<LaunchOptions, 'sshCommand'>): string[] | undefined {
  if (spec.command) return checkCommand(spec.command, 'The node command');
  if (!spec.nodeCommand) return undefined;
  const words = checkCommand(spec.nodeCommand, 'The node command');
  return sshArgv(o, checkDestination(spec.ssh), words.map(shQuote).join(' '));
}

/** What went wrong, in words a person can act on. */
export function diagnose(spec: NodeSpec, info: ExitInfo): string {
  const where = spec.ssh ?? spec.command?.[0] ?? 'the node';
  const err = info.stderr;
  if (info.reason) return `${where}: ${info.reason}`;
  if (spec.ssh && info.code === 255) {
    if (/REMOTE HOST IDENTIFICATION HAS CHANGED|Host key for .* has changed/i.test(err))
      return `${where}: the host key does not match the one in known_hosts (SSH refused to connect: the machine was reinstalled, or someone is in between). Check the new key and update known_hosts yourself.`;
    if (/Host key verification failed|No .*host key is known/i.test(err))
      return `${where}: the host key is not known yet. Connect once with "ssh ${where}" in a terminal to check and accept it.`;
    if (/Permission denied/i.test(err))
      return `${where}: SSH refused the login (no key was accepted). Make sure "ssh ${where}" works without a password prompt (a key in your agent or ~/.ssh).`;
    if (/Could not resolve hostname/i.test(err)) return `${where}: the host name could not be resolved.`;
    if (/Connection refused|timed out|No route to host|Network is unreachable/i.test(err))
      return `${where}: cannot reach the SSH server (${err.trim().split('\n').pop()?.slice(0, 200)}).`;
  }
  if (info.code === EXIT.noNode)
    return `${where}: Node.js is not installed there (no "node" on the PATH of a non-interactive SSH login). Install Node.js 20 or newer.`;
  if (info.code === EXIT.oldNode)
    return `${where}: Node.js there is too old; the node needs Node.js 20 or newer (${err.trim().slice(0, 200)}).`;
  if (info.code === 127 || /command not found|No such file or directory/i.test(err))
    return `${where}: the node command was not found (${err.trim().split('\n').pop()?.slice(0, 200)}).`;
  return `${where}: ${describeExit(info)}`;
}

async function waitReady(conn: NodeConnection): Promise<{ hello: NodeHello } | { exit: ExitInfo }> {
  try {
    return { hello: await conn.ready };
  } catch {
    return new Promise((resolve) => conn.onClose((exit) => resolve({ exit })));
  }
}

/** Runs `argv` with `input` on stdin; resolves with how it ended. */
function runWithInput(argv: string[], input: Buffer, env: NodeJS.ProcessEnv | undefined): Promise<ExitInfo> {
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), {
      shell: false,
      stdio: ['pipe', 'ignore', 'pipe'],
      env: env ?? process.env,
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString('utf8')).slice(-8192)));
    child.stdin.on('error', () => {});
    child.on('error', (err) => resolve({ code: null, signal: null, stderr: err.message }));
    child.on('close', (code, signal) => resolve({ code, signal, stderr }));
    child.stdin.end(input);
  });
}

/**
 * Starts the node of `spec` and waits for its hello. Over SSH without a node command, a missing
 * or older node file is copied first. Rejects with a NodeStartError that names the cause.
 */
export async function launchNode(
  spec: NodeSpec,
  o: LaunchOptions,
): Promise<{ conn: NodeConnection; hello: NodeHello }> {
  let install: (() => Promise<ExitInfo>) | undefined;
  let argv = namedCommandLine(spec, o);
  if (!argv) {
    const dest = checkDestination(spec.ssh);
    if (!o.bundle || !fs.existsSync(o.bundle))
      throw new NodeStartError(
        `This Sightline has no node file to install on ${dest} (build it with "npm run build:node"), or name the node command to run there.`,
      );
    const bundle = o.bundle;
    const id = bundleId(bundle);
    argv = sshArgv(o, dest, `sh -c ${shQuote(runScript(id, spec.allowContinue === true))}`);
    install = () =>
      runWithInput(sshArgv(o, dest, `sh -c ${shQuote(installScript(id))}`), fs.readFileSync(bundle), o.env);
  }
  for (let attempt = 0; ; attempt++) {
    const conn = NodeConnection.start(argv, {
      helloTimeoutMs: o.helloTimeoutMs,
      ...(o.env ? { env: o.env } : {}),
    });
    const r = await waitReady(conn);
    if ('hello' in r) return { conn, hello: r.hello };
    if (install && attempt === 0 && r.exit.code === EXIT.noFile) {
      const copied = await install();
      if (copied.code !== 0)
        throw new NodeStartError(`Could not copy the node file to ${spec.ssh}: ${diagnose(spec, copied)}`);
      continue;
    }
    throw new NodeStartError(diagnose(spec, r.exit));
  }
}

export { NodeOfflineError };
