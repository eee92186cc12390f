// `npm run web` opens the person's default browser on the page when there is one: `open` on
// macOS, `start` on Windows, `xdg-open` on Linux/BSD with a display. Without one (a server, SSH,
// CI) nothing is started and the URL is printed, as always. `--no-open` skips it.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface BrowserCommand {
  command: string;
  args: string[];
}

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

/** How to open `url` here, or undefined when this machine has no browser to show it in. */
export function browserCommand(
  url: string,
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
  has: (name: string) => boolean = (n) => onPath(n, env),
): BrowserCommand | undefined {
  if (!/^http:\/\/127\.0\.0\.1:\d+\/#token=[A-Za-z0-9_-]+$/.test(url)) return undefined;
  if (platform === 'darwin') return { command: 'open', args: [url] };
  // `start`'s first quoted argument is a window title; the URL has no shell metacharacters.
  if (platform === 'win32') return { command: 'cmd', args: ['/c', 'start', '""', url] };
  if (!env.DISPLAY && !env.WAYLAND_DISPLAY) return undefined;
  return has('xdg-open') ? { command: 'xdg-open', args: [url] } : undefined;
}

/** Starts the browser, detached; true when a command was started. Failures are silent. */
export function openInBrowser(url: string): boolean {
  const cmd = browserCommand(url);
  if (!cmd) return false;
  try {
    const child = spawn(cmd.command, cmd.args, { detached: true, stdio: 'ignore' });
    child.on('error', () => {});
    child.unref();
    return true;
  } catch {
    return false;
  }
}
