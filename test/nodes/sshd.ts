// A real OpenSSH server for one test file: Debian's sshd on 127.0.0.1 and a free port, with a
// throwaway host key, a throwaway user key, and a home of its own for the logged-in user
// (SetEnv HOME), so nothing touches the machine's real ~/.ssh or home. Works as root (CI: the
// privilege-separation folder is made when missing) and unprivileged (sshd then logs in only the
// user it runs as). Missing sshd or ssh fails the test: it never skips.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { waitFor } from '../helpers/gateway';

export const SSHD = ['/usr/sbin/sshd', '/usr/bin/sshd', '/usr/local/sbin/sshd'].find((p) => fs.existsSync(p));

export interface Sshd {
  dir: string;
  port: number;
  /** The logged-in user's home on the "remote". */
  home: string;
  hostKeyPub: string;
  userKey: string;
  /** An ssh_config with Host `sightline-test` (HostName 127.0.0.1, the port, the user key, known_hosts). */
  config(opts?: { knownHosts?: string; identity?: string }): string;
  /** A known_hosts line for this server with the given public key (default the real host key). */
  knownHosts(pub?: string): string;
  keygen(name: string): { key: string; pub: string };
  stop(): void;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const c = net.connect(port, '127.0.0.1');
    c.on('connect', () => {
      c.destroy();
      resolve(true);
    });
    c.on('error', () => resolve(false));
  });
}

export async function startSshd(dir: string): Promise<Sshd> {
  if (!SSHD)
    throw new Error('sshd is not installed (Debian: apt-get install openssh-server); this test needs it');
  if (spawnSync('ssh', ['-V']).error)
    throw new Error('the ssh client is not installed (Debian: openssh-client)');
  const keygen = (name: string) => {
    const key = path.join(dir, name);
    const r = spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', key]);
    if (r.status !== 0) throw new Error(`ssh-keygen failed: ${r.stderr?.toString()}`);
    return { key, pub: fs.readFileSync(`${key}.pub`, 'utf8').trim().split(' ').slice(0, 2).join(' ') };
  };
  const host = keygen('host_key');
  const user = keygen('user_key');
  fs.writeFileSync(path.join(dir, 'authorized_keys'), `${user.pub}\n`, { mode: 0o600 });
  const home = path.join(dir, 'home');
  fs.mkdirSync(home, { mode: 0o700 });
  const port = await freePort();
  const me = os.userInfo().username;
  const root = process.getuid?.() === 0;
  // sshd as root wants its privilege-separation folder (Debian's service makes it at boot).
  if (root) fs.mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const nodeDir = path.dirname(process.execPath);
  const configFile = path.join(dir, 'sshd_config');
  fs.writeFileSync(
    configFile,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${host.key}`,
      `PidFile ${path.join(dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${path.join(dir, 'authorized_keys')}`,
      // The temp folders are not the user's home: skip sshd's ownership checks of them.
      'StrictModes no',
      'PubkeyAuthentication yes',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'UsePAM no',
      `AllowUsers ${me}`,
      ...(root ? ['PermitRootLogin prohibit-password'] : []),
      `SetEnv HOME=${home} PATH=${nodeDir}:/usr/local/bin:/usr/bin:/bin`,
      'LogLevel ERROR',
      '',
    ].join('\n'),
  );
  const log: string[] = [];
  const child: ChildProcess = spawn(SSHD, ['-D', '-e', '-f', configFile], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr?.on('data', (d: Buffer) => log.push(d.toString()));
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  try {
    await Promise.race([
      waitFor(() => canConnect(port), 10_000, 'sshd to listen'),
      exited.then(() => {
        throw new Error(`sshd exited: ${log.join('')}`);
      }),
    ]);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  const knownHosts = (pub = host.pub) => `[127.0.0.1]:${port} ${pub}\n`;
  const configs = new Map<string, string>();
  return {
    dir,
    port,
    home,
    hostKeyPub: host.pub,
    userKey: user.key,
    keygen,
    knownHosts,
    config(opts = {}) {
      const kh = opts.knownHosts ?? knownHosts();
      const id = opts.identity ?? user.key;
      const name = `ssh_config_${configs.size}`;
      const khFile = path.join(dir, `known_hosts_${configs.size}`);
      fs.writeFileSync(khFile, kh);
      const file = path.join(dir, name);
      fs.writeFileSync(
        file,
        [
          'Host sightline-test',
          '  HostName 127.0.0.1',
          `  Port ${port}`,
          `  User ${me}`,
          `  IdentityFile ${id}`,
          '  IdentitiesOnly yes',
          '  IdentityAgent none',
          `  UserKnownHostsFile ${khFile}`,
          '  GlobalKnownHostsFile /dev/null',
          '  StrictHostKeyChecking yes',
          '  LogLevel ERROR',
          '',
        ].join('\n'),
      );
      configs.set(name, file);
      return file;
    },
    stop() {
      child.kill('SIGTERM');
    },
  };
}
