// A node's identity is bound to its machine's SSH host key at pairing (issue 29.6): the keys the
// person's known_hosts holds for the destination (as `ssh -G` resolves it: HostName, Port,
// HostKeyAlias, the known_hosts files) are fingerprinted and stored with the node. On every later
// connection they must be the same: a node id claimed from another machine, or a known_hosts entry
// changed since, is refused until the person pairs the node again.
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import os from 'node:os';
import { checkDestination, type LaunchOptions } from './launch';

const TIMEOUT_MS = 10_000;

function run(argv: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(argv[0]!, argv.slice(1), { timeout: TIMEOUT_MS, maxBuffer: 1024 * 1024 }, (err, stdout) => {
      // ssh-keygen -F exits 1 when nothing matches: that is an answer (no keys), not a failure.
      if (err && (err as { code?: unknown }).code !== 1) reject(err);
      else resolve(stdout);
    });
  });
}

/** `ssh -G` output: the options ssh would use for `dest`. */
function options(text: string): Map<string, string> {
  const m = new Map<string, string>();
  for (const line of text.split('\n')) {
    const at = line.indexOf(' ');
    if (at > 0 && !m.has(line.slice(0, at)))
      m.set(line.slice(0, at).toLowerCase(), line.slice(at + 1).trim());
  }
  return m;
}

/** SHA256 fingerprints of the keys in known_hosts lines (`host type base64 …`). */
export function fingerprints(knownHosts: string): string[] {
  const out = new Set<string>();
  for (const line of knownHosts.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (!line.trim() || line.startsWith('#') || f.length < 3) continue;
    const [type, blob] = f[0]!.startsWith('@') ? [f[2], f[3]] : [f[1], f[2]];
    if (!type || !blob || !/^[A-Za-z0-9+/]+=*$/.test(blob)) continue;
    const digest = crypto.createHash('sha256').update(Buffer.from(blob, 'base64')).digest('base64');
    out.add(`${type} SHA256:${digest.replace(/=+$/, '')}`);
  }
  return [...out].sort();
}

/** The host key binding of an SSH destination: its known keys' fingerprints, one line each. */
export async function hostKeyOf(o: Pick<LaunchOptions, 'sshCommand'>, dest: string): Promise<string> {
  const d = checkDestination(dest);
  const g = options(await run([...o.sshCommand, '-G', '--', d]));
  const host =
    g.get('hostkeyalias') && g.get('hostkeyalias') !== 'none' ? g.get('hostkeyalias')! : g.get('hostname');
  if (!host) throw new Error(`ssh -G did not name a host for ${d}`);
  const port = g.get('port') ?? '22';
  const name = port === '22' || g.has('hostkeyalias') ? host : `[${host}]:${port}`;
  const files = `${g.get('userknownhostsfile') ?? ''} ${g.get('globalknownhostsfile') ?? ''}`
    .split(/\s+/)
    .filter((f) => f && f !== 'none')
    .map((f) => (f.startsWith('~/') ? `${os.homedir()}${f.slice(1)}` : f));
  const lines: string[] = [];
  for (const f of files) lines.push(await run(['ssh-keygen', '-F', name, '-f', f]).catch(() => ''));
  const keys = fingerprints(lines.join('\n'));
  if (keys.length === 0)
    throw new Error(
      `no host key of ${d} is known (known_hosts): connect once with "ssh ${d}" to check and accept it`,
    );
  return keys.join('\n');
}
