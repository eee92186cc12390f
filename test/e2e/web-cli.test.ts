// `npm run web` for a newcomer (issue 17.7): a port in use is one plain sentence, and the default
// browser opens when this machine has one (`--no-open` skips it), never with the token on its
// command line (issue 29.1).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserCommand } from '../../electron/web/open-browser';
import { ensureRenderer, ROOT, tmpDir } from './helpers';

const CLI = path.join(ROOT, 'electron/web/cli.ts');
const dirs: string[] = [];

beforeAll(async () => {
  await ensureRenderer();
}, 120_000);

afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

interface Run {
  stdout: string;
  stderr: string;
  code: number | null;
}

/** Every process whose command line contains `text` (Linux: what any local user can read). */
function commandLinesWith(text: string): string[] {
  const found: string[] = [];
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const line = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (line.includes(text)) found.push(`${pid}: ${line}`);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/**
 * Runs the CLI until it exits, or until `until` matches its output: then `meanwhile` runs (while
 * the CLI still serves) and the CLI is stopped.
 */
function runCli(
  args: string[],
  env: NodeJS.ProcessEnv,
  until?: RegExp,
  meanwhile?: (stdout: string) => Promise<void>,
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], { cwd: ROOT, env });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    let matched = false;
    const check = () => {
      if (matched || !until?.test(stdout)) return;
      matched = true;
      void (meanwhile?.(stdout) ?? Promise.resolve()).catch(reject).finally(() => child.kill('SIGTERM'));
    };
    child.stdout.on('data', (c: Buffer) => ((stdout += c.toString()), check()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ stdout, stderr, code });
    });
  });
}

function baseEnv(): NodeJS.ProcessEnv {
  const dataDir = tmpDir('sightline-web-cli-');
  dirs.push(dataDir);
  const { DISPLAY: _d, WAYLAND_DISPLAY: _w, ...rest } = process.env;
  return { ...rest, SIGHTLINE_DATA_DIR: dataDir };
}

describe('npm run web', () => {
  it('says "port N is in use; set SIGHTLINE_WEB_PORT or free it" instead of EADDRINUSE', async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const run = await runCli(['--no-open'], { ...baseEnv(), SIGHTLINE_WEB_PORT: String(port) });
      expect(run.code).toBe(1);
      expect(run.stderr.trim()).toBe(`port ${port} is in use; set SIGHTLINE_WEB_PORT or free it`);
      expect(run.stderr).not.toContain('EADDRINUSE');
    } finally {
      blocker.close();
    }
  }, 60_000);

  it('opens the default browser on a private launch file: the token is in no command line (issue 29.1)', async () => {
    // A stand-in xdg-open on PATH records what it was asked to open, then stays a while: every
    // process's command line (/proc/*/cmdline, readable by all local users) is read meanwhile.
    const bin = tmpDir('sightline-web-bin-');
    dirs.push(bin);
    const opened = path.join(bin, 'opened.txt');
    fs.writeFileSync(
      path.join(bin, 'xdg-open'),
      `#!/bin/sh\nprintf '%s' "$1" > '${opened}.part' && mv '${opened}.part' '${opened}'\nsleep 3\n`,
      { mode: 0o755 },
    );
    const env: NodeJS.ProcessEnv = {
      ...baseEnv(),
      DISPLAY: ':99',
      PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`,
    };

    const quiet = await runCli(['--no-open'], env, /Open: /);
    expect(quiet.stdout).toMatch(/Open: http:\/\/127\.0\.0\.1:\d+\/#token=/);
    expect(quiet.stdout).not.toContain('opened in your browser');
    expect(fs.existsSync(opened)).toBe(false);

    let seen: string[] | undefined;
    let launch: { text: string; mode: number; dirMode: number } | undefined;
    const run = await runCli([], env, /opened in your browser/, async (stdout) => {
      const token = /#token=([A-Za-z0-9_-]+)/.exec(stdout)![1]!;
      await expect.poll(() => fs.existsSync(opened), { timeout: 10_000 }).toBe(true);
      seen = commandLinesWith(token);
      const file = fileURLToPath(fs.readFileSync(opened, 'utf8'));
      launch = {
        text: fs.readFileSync(file, 'utf8'),
        mode: fs.statSync(file).mode & 0o777,
        dirMode: fs.statSync(path.dirname(file)).mode & 0o777,
      };
    });
    const url = /Open: (\S+)/.exec(run.stdout)?.[1];
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#token=[A-Za-z0-9_-]+$/);
    expect(seen).toEqual([]);
    expect(fs.readFileSync(opened, 'utf8')).toMatch(/^file:\/\/\/.*\/launch\/open-\d+-\d+\.html$/);
    expect(launch?.text).toContain(`<meta http-equiv="refresh" content="0;url=${url}">`);
    expect(launch?.mode).toBe(0o600);
    expect(launch?.dirMode).toBe(0o700);
    // Browser mode stopped: the launch file went with it.
    expect(fs.readdirSync(path.join(env.SIGHTLINE_DATA_DIR!, 'launch'))).toEqual([]);
  }, 120_000);

  it('chooses the command per platform, and none without a display', () => {
    const url = 'file:///home/p/.sightline/launch/open-1-2.html';
    const yes = () => true;
    expect(browserCommand(url, 'darwin', {}, yes)).toEqual({ command: 'open', args: [url] });
    expect(browserCommand(url, 'win32', {}, yes)).toEqual({
      command: 'cmd',
      args: ['/c', 'start', '""', url],
    });
    expect(browserCommand(url, 'linux', { DISPLAY: ':0' }, yes)).toEqual({
      command: 'xdg-open',
      args: [url],
    });
    expect(browserCommand(url, 'linux', { WAYLAND_DISPLAY: 'wayland-0' }, yes)?.command).toBe('xdg-open');
    expect(browserCommand(url, 'linux', {}, yes)).toBeUndefined();
    expect(browserCommand(url, 'linux', { DISPLAY: ':0' }, () => false)).toBeUndefined();
    // Only a launch file's URL is ever handed to a command: never the page's (its token), nothing
    // a shell could read as an operator.
    expect(
      browserCommand('http://127.0.0.1:4000/#token=abcDEF_-123', 'linux', { DISPLAY: ':0' }, yes),
    ).toBeUndefined();
    expect(browserCommand('file:///C:/Users/a&calc/open-1-2.html', 'win32', {}, yes)).toBeUndefined();
  });
});
