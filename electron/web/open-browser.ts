// `npm run web` opens the person's default browser on the page when there is one: `open` on
// macOS, `start` on Windows, `xdg-open` on Linux/BSD with a display. Without one (a server, SSH,
// CI) nothing is started and the URL is printed, as always. `--no-open` skips it.
// The page's URL carries the token, and a command line is readable by every local user (Linux:
// /proc/*/cmdline). So the browser is never given the URL: it is given a launch file, readable
// only by the person (0600 in a 0700 folder of the data folder), that forwards to the URL, and
// that is removed a minute later or when browser mode stops.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export interface BrowserCommand {
  command: string;
  args: string[];
}

const PAGE_URL = /^http:\/\/127\.0\.0\.1:\d+\/#token=[A-Za-z0-9_-]+$/;
/** A launch file's URL: nothing a shell (`cmd /c start`) could read as an operator. */
const LAUNCH_URL = /^file:\/\/\/[A-Za-z0-9_.~%/:-]+\.html$/;
/** How long the launch file stays: the browser reads it as it starts. */
export const LAUNCH_FILE_MS = 60_000;

function onPath(name: string, env: NodeJS.ProcessEnv): boolean {
  return (env.PATH ?? '').split(path.delimiter).some((dir) => {
    try {
      fs.accessSync(path.join(dir, name), fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** How to open the launch file at `fileUrl` here, or undefined when there is no browser. */
export function browserCommand(
  fileUrl: string,
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
  has: (name: string) => boolean = (n) => onPath(n, env),
): BrowserCommand | undefined {
  if (!LAUNCH_URL.test(fileUrl)) return undefined;
  if (platform === 'darwin') return { command: 'open', args: [fileUrl] };
  // `start`'s first quoted argument is a window title; the URL has no shell metacharacters.
  if (platform === 'win32') return { command: 'cmd', args: ['/c', 'start', '""', fileUrl] };
  if (!env.DISPLAY && !env.WAYLAND_DISPLAY) return undefined;
  return has('xdg-open') ? { command: 'xdg-open', args: [fileUrl] } : undefined;
}

/** A folder only this user can enter; refused when it is a link or someone else's. */
function privateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = fs.lstatSync(dir);
  if (!st.isDirectory()) throw new Error(`${dir} is not a folder`);
  if (process.getuid && st.uid !== process.getuid()) throw new Error(`${dir} belongs to another user`);
  if ((st.mode & 0o077) !== 0) fs.chmodSync(dir, 0o700);
}

/** Writes the launch file for `url` into `dir` (created private); returns its path. */
export function writeLaunchFile(dir: string, url: string): string {
  if (!PAGE_URL.test(url)) throw new Error('not a browser mode URL');
  privateDir(dir);
  const file = path.join(dir, `open-${process.pid}-${Date.now()}.html`);
  const html =
    '<!doctype html><html><head><meta charset="utf-8">' +
    `<meta http-equiv="refresh" content="0;url=${url}"><title>Opening Sightline</title></head>` +
    `<body><p><a href="${url}">Open Sightline</a></p></body></html>\n`;
  // wx: never through a file (or link) someone put there; 0600: only this user reads the token.
  fs.writeFileSync(file, html, { mode: 0o600, flag: 'wx' });
  return file;
}

/**
 * Starts the browser on a launch file for `url` (in `dir`), detached; true when a command was
 * started. The file goes after LAUNCH_FILE_MS, or at `stop()`. Failures are silent.
 */
export function openInBrowser(url: string, dir: string): { opened: boolean; stop(): void } {
  let file: string | undefined;
  const stop = () => {
    if (file) fs.rmSync(file, { force: true });
    file = undefined;
  };
  try {
    file = writeLaunchFile(dir, url);
    const cmd = browserCommand(pathToFileURL(file).href);
    if (!cmd) return (stop(), { opened: false, stop });
    const child = spawn(cmd.command, cmd.args, { detached: true, stdio: 'ignore' });
    child.on('error', () => {});
    child.unref();
    setTimeout(stop, LAUNCH_FILE_MS).unref();
    return { opened: true, stop };
  } catch {
    stop();
    return { opened: false, stop };
  }
}
