// `npm run web` for a newcomer (issue 17.7): a port in use is one plain sentence, and the default
// browser opens when this machine has one (`--no-open` skips it).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
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

/** Runs the CLI until it exits, or until `until` matches its output (then stops it). */
function runCli(args: string[], env: NodeJS.ProcessEnv, until?: RegExp): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], { cwd: ROOT, env });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const check = () => {
      if (until?.test(stdout)) child.kill('SIGTERM');
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

  it('opens the default browser when there is one, and not with --no-open', async () => {
    // A stand-in xdg-open on PATH records the URL it was asked to open.
    const bin = tmpDir('sightline-web-bin-');
    dirs.push(bin);
    const opened = path.join(bin, 'opened.txt');
    fs.writeFileSync(path.join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\n`, {
      mode: 0o755,
    });
    const env = { ...baseEnv(), DISPLAY: ':99', PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` };

    const quiet = await runCli(['--no-open'], env, /Open: /);
    expect(quiet.stdout).toMatch(/Open: http:\/\/127\.0\.0\.1:\d+\/#token=/);
    expect(quiet.stdout).not.toContain('opened in your browser');
    expect(fs.existsSync(opened)).toBe(false);

    const run = await runCli([], env, /opened in your browser/);
    const url = /Open: (\S+)/.exec(run.stdout)?.[1];
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#token=[A-Za-z0-9_-]+$/);
    await expect.poll(() => fs.existsSync(opened) && fs.readFileSync(opened, 'utf8')).toBe(url);
  }, 120_000);

  it('chooses the command per platform, and none without a display', () => {
    const url = 'http://127.0.0.1:4000/#token=abcDEF_-123';
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
    // Only the page's own URL shape is ever handed to a shell command.
    expect(browserCommand('http://127.0.0.1:4000/#token=a&calc', 'win32', {}, yes)).toBeUndefined();
  });
});
