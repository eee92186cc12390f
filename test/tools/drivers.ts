// How to run each real CLI offline in a temporary home so that it writes its own transcript: the
// first prompt, a second prompt into the same session (its own resume/continue/--session), and
// its own delete where it has one. Every network address a tool could use points at a closed
// local port, so nothing leaves the machine: the tool records the prompt, then its model call
// fails, and the tool is stopped once the prompt is on disk.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { ToolId } from './install';

const DEAD = 'http://127.0.0.1:9';

export interface Driver {
  /** Environment beyond HOME that keeps the tool offline and lets it start. */
  env: NodeJS.ProcessEnv;
  first(text: string): string[];
  next(threadId: string, text: string): string[];
  /** The tool's own delete command, when it has one (else the transcript file is removed). */
  remove?(threadId: string): string[];
}

const offline: NodeJS.ProcessEnv = {
  HTTP_PROXY: DEAD,
  HTTPS_PROXY: DEAD,
  ALL_PROXY: DEAD,
  http_proxy: DEAD,
  https_proxy: DEAD,
  NO_PROXY: '',
  npm_config_registry: `${DEAD}/`,
};

export const DRIVERS: Record<ToolId, Driver> = {
  claude: {
    // Claude Code refuses to run as root unless told it runs in a sandbox.
    env: {
      IS_SANDBOX: '1',
      ANTHROPIC_API_KEY: 'sk-ant-offline-test',
      ANTHROPIC_BASE_URL: DEAD,
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
      DISABLE_AUTOUPDATER: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    },
    first: (text) => ['-p', text],
    next: (id, text) => ['--resume', id, '-p', text],
  },
  codex: {
    env: { OPENAI_API_KEY: 'sk-offline-test', OPENAI_BASE_URL: `${DEAD}/v1` },
    first: (text) => ['exec', '--skip-git-repo-check', text],
    next: (id, text) => ['exec', '--skip-git-repo-check', 'resume', id, text],
  },
  opencode: {
    env: {
      ANTHROPIC_API_KEY: 'sk-ant-offline-test',
      ANTHROPIC_BASE_URL: DEAD,
      OPENCODE_DISABLE_AUTOUPDATE: '1',
      OPENCODE_DISABLE_MODELS_FETCH: '1',
    },
    first: (text) => ['run', '--pure', '-m', 'anthropic/claude-sonnet-4-5', text],
    next: (id, text) => ['run', '--pure', '-m', 'anthropic/claude-sonnet-4-5', '--session', id, text],
    remove: (id) => ['session', 'delete', id],
  },
  pi: {
    env: { PI_OFFLINE: '1', ANTHROPIC_API_KEY: 'sk-ant-offline-test', ANTHROPIC_BASE_URL: DEAD },
    first: (text) => ['--offline', '--provider', 'anthropic', '-p', text],
    next: (id, text) => ['--offline', '--provider', 'anthropic', '--session', id, '-p', text],
  },
};

export function toolEnv(id: ToolId, home: string): NodeJS.ProcessEnv {
  return {
    PATH: [path.dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(path.delimiter),
    HOME: home,
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    ...offline,
    ...DRIVERS[id].env,
  };
}

export interface Run {
  /** Resolves when the process has exited (after `stop`, or by itself). */
  exited: Promise<number | null>;
  output(): string;
  stop(): Promise<void>;
}

/** Starts the tool in its own process group, so stopping it stops everything it started. */
export function runTool(bin: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv }): Run {
  const child = spawn(bin, args, {
    cwd: opts.cwd,
    env: opts.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (d: Buffer) => {
    if (out.length < 64 * 1024) out += d.toString('utf8');
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<number | null>((resolve) => {
    child.on('exit', (code) => resolve(code));
    child.on('error', (err) => {
      out += `\nspawn error: ${err.message}`;
      resolve(null);
    });
  });
  return {
    exited,
    output: () => out,
    async stop() {
      try {
        // SIGKILL: a gentler signal lets some tools record an interruption, which is a human act.
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
      await exited;
    },
  };
}

/** Size and modification time of files, to tell when a tool has stopped writing. */
export function fingerprint(files: string[]): string {
  return files
    .map((f) => {
      try {
        const st = fs.statSync(f);
        return `${f}:${st.size}:${st.mtimeMs}`;
      } catch {
        return `${f}:-`;
      }
    })
    .join('|');
}
