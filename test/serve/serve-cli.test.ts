// `npm run serve -- --listen HOST:PORT` as a person runs it (issue 30.2, the fixed interface):
// TLS on a loopback address, `Fingerprint: sha256:<hex>` and `Invite: <code>` printed; killed
// with SIGKILL mid-use it loses nothing, comes back with the same fingerprint, and the client
// reconnects on its own with its credential.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { connectServe, type ServeClient } from '../../electron/serve/client';
import { tempDir, waitFor } from '../helpers/gateway';

const HOST = '127.0.0.3';
const running: ChildProcess[] = [];
let client: ServeClient | undefined;
let dataDir = '';
afterEach(() => {
  client?.close();
  for (const p of running.splice(0)) if (p.exitCode === null && p.signalCode === null) killGroup(p);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** npm, tsx and the gateway run in one process group: all of them go. */
function killGroup(p: ChildProcess): void {
  try {
    process.kill(-p.pid!, 'SIGKILL');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, HOST, r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise((r) => srv.close(r));
  return port;
}

/** Starts `npm run serve` in its own process group; resolves with the printed lines. */
async function serve(port: number): Promise<{ proc: ChildProcess; fingerprint: string; invite: string }> {
  const proc = spawn(
    'npm',
    ['run', '--silent', 'serve', '--', '--listen', `${HOST}:${port}`, '--data-dir', dataDir],
    {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  running.push(proc);
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const lines = await waitFor(() => (/^Invite: (\S+)$/m.test(out) ? out : ''), 30_000, 'the printed invite');
  return {
    proc,
    fingerprint: /^Fingerprint: (sha256:[0-9a-f]{64})$/m.exec(lines)![1]!,
    invite: /^Invite: (inv_[\w-]+)$/m.exec(lines)![1]!,
  };
}

describe('npm run serve', () => {
  it('prints its pin and an invitation, survives SIGKILL, and its clients reconnect by themselves', async () => {
    dataDir = tempDir();
    const port = await freePort();
    const first = await serve(port);
    let connects = 0;
    client = connectServe({
      url: `wss://${HOST}:${port}/ws`,
      pin: first.fingerprint,
      invite: { code: first.invite, name: 'Alice' },
      onConnect: () => connects++,
    });
    expect(await client.ready).toMatchObject({ id: 'user:alice', role: 'owner' });
    const goal = await client.invoke('goals:set', {
      sessionKey: 'agent:main:main',
      objective: 'ship issue 30',
    });
    expect(goal.ok).toBe(true);
    expect((await client.invoke('accounts:invite')).ok).toBe(true);

    killGroup(first.proc);
    await waitFor(
      () => first.proc.exitCode !== null || first.proc.signalCode !== null,
      5000,
      'the gateway gone',
    );
    const second = await serve(port);
    expect(second.fingerprint).toBe(first.fingerprint);
    expect(second.invite).not.toBe(first.invite);

    await waitFor(() => connects === 2, 15_000, 'the client back on its own');
    const session = await client.invoke('sessions:get', { sessionKey: 'agent:main:main' });
    expect(session.ok && (session.value as { goal: { objective: string } }).goal.objective).toBe(
      'ship issue 30',
    );
    const audit = await client.invoke('audit:list');
    expect(audit.ok && (audit.value as { action: string }[]).map((a) => a.action)).toEqual(['invite']);
    const events = await client.invoke('timeline:page', { sessionKey: 'agent:main:main', limit: 10 });
    const goalEvent =
      events.ok &&
      (events.value as { events: { kind: string; actorId?: string }[] }).events.find((e) =>
        e.kind.startsWith('goal'),
      );
    expect(goalEvent).toMatchObject({ actorId: 'user:alice' });
  }, 90_000);

  it('refuses to start without --listen, and with half a certificate pair', async () => {
    dataDir = tempDir();
    const run = (args: string[]) =>
      new Promise<{ code: number | null; err: string }>((resolve) => {
        const p = spawn('npm', ['run', '--silent', 'serve', '--', ...args, '--data-dir', dataDir], {
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let err = '';
        p.stderr!.on('data', (d: Buffer) => (err += d.toString()));
        p.on('exit', (code) => resolve({ code, err }));
      });
    expect(await run([])).toEqual({
      code: 1,
      err: '--listen HOST:PORT is required (e.g. --listen 127.0.0.1:7443)\n',
    });
    expect(await run(['--listen', `${HOST}:1`, '--cert', '/nonexistent.pem'])).toEqual({
      code: 1,
      err: 'give both --cert FILE and --key FILE, or neither (a self-signed pair is generated)\n',
    });
  }, 60_000);
});
