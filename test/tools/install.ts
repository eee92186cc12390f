// The four real agent CLIs, installed from the npm registry into a cache outside the repository
// (kept between runs): `$SIGHTLINE_TOOLS_CACHE`, else `~/.cache/sightline/tools/<tool>-<version>`.
// Pinned versions are what the catalog is verified against (README "Real tools"); "latest" asks
// the registry for the newest. Run directly to install: `npx tsx test/tools/install.ts [--latest]`.
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export type ToolId = 'claude' | 'codex' | 'opencode' | 'pi';

export interface ToolSpec<Id extends string = ToolId> {
  id: Id;
  pkg: string;
  pinned: string;
  bin: string;
}

export const TOOLS: readonly ToolSpec[] = [
  { id: 'claude', pkg: '@anthropic-ai/claude-code', pinned: '2.1.332', bin: 'claude' },
  { id: 'codex', pkg: '@openai/codex', pinned: '0.171.0', bin: 'codex' },
  { id: 'opencode', pkg: 'opencode-ai', pinned: '1.18.33', bin: 'opencode' },
  { id: 'pi', pkg: '@mariozechner/pi-coding-agent', pinned: '0.73.1', bin: 'pi' },
];

/**
 * The ACP agents the whole-turn suite runs (test/agents), pinned: Claude Code through Zed's current
 * adapter and its older one, Codex through codex-acp, Gemini CLI in its ACP mode. OpenCode's ACP
 * mode is the `opencode` CLI above (`opencode acp`).
 */
export type AgentId = 'claude-agent-acp' | 'claude-code-acp' | 'codex-acp' | 'gemini';
export const ACP_AGENTS: readonly ToolSpec<AgentId>[] = [
  {
    id: 'claude-agent-acp',
    pkg: '@zed-industries/claude-agent-acp',
    pinned: '0.23.1',
    bin: 'claude-agent-acp',
  },
  { id: 'claude-code-acp', pkg: '@zed-industries/claude-code-acp', pinned: '0.16.2', bin: 'claude-code-acp' },
  { id: 'codex-acp', pkg: '@zed-industries/codex-acp', pinned: '0.16.0', bin: 'codex-acp' },
  { id: 'gemini', pkg: '@google/gemini-cli', pinned: '0.61.0', bin: 'gemini' },
];

export function toolsCache(): string {
  return process.env.SIGHTLINE_TOOLS_CACHE || path.join(os.homedir(), '.cache', 'sightline', 'tools');
}

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const LOCKS = path.join(import.meta.dirname, 'locks');

/** The newest version the registry serves. */
export function latestVersion(spec: ToolSpec<string>): string {
  return execFileSync(NPM, ['view', spec.pkg, 'version'], { encoding: 'utf8', timeout: 120_000 }).trim();
}

function installedVersion(dir: string, spec: ToolSpec<string>): string | undefined {
  try {
    const pj = JSON.parse(
      fs.readFileSync(path.join(dir, 'node_modules', spec.pkg, 'package.json'), 'utf8'),
    ) as {
      version?: string;
    };
    return pj.version;
  } catch {
    return undefined;
  }
}

/**
 * The tool's executable at `version`, installed first when the cache lacks it. The install goes to
 * a staging folder renamed into place, so an interrupted or concurrent install never leaves a
 * half-installed tool behind. Throws (never skips) when it cannot be installed.
 */
export async function ensureTool(spec: ToolSpec<string>, version: string): Promise<string> {
  const dir = path.join(toolsCache(), `${spec.id}-${version}`);
  const bin = path.join(dir, 'node_modules', '.bin', spec.bin);
  if (installedVersion(dir, spec) === version && fs.existsSync(bin)) return bin;
  fs.mkdirSync(toolsCache(), { recursive: true });
  const stage = fs.mkdtempSync(path.join(toolsCache(), `.${spec.id}-${version}-`));
  // A verified version installs from its committed lockfile (the same dependency tree every time);
  // another version resolves afresh.
  const lock = path.join(LOCKS, `${spec.id}-${version}`);
  try {
    // `install`, not `ci`: a lockfile lists only the platform packages of the machine that wrote it.
    const args = fs.existsSync(lock)
      ? ['install', '--no-audit', '--no-fund', '--loglevel=error']
      : ['install', '--no-audit', '--no-fund', '--save-exact', '--loglevel=error', `${spec.pkg}@${version}`];
    if (fs.existsSync(lock)) fs.cpSync(lock, stage, { recursive: true });
    else fs.writeFileSync(path.join(stage, 'package.json'), '{"private":true}\n');
    await promisify(execFile)(NPM, args, { cwd: stage, timeout: 600_000, maxBuffer: 16 * 1024 * 1024 });
    if (installedVersion(stage, spec) !== version)
      throw new Error(`npm installed another version of ${spec.pkg}`);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.renameSync(stage, dir);
  } catch (err) {
    fs.rmSync(stage, { recursive: true, force: true });
    const why = String((err as { stderr?: unknown }).stderr ?? '')
      .trim()
      .split('\n')
      .slice(-3)
      .join(' ');
    throw new Error(`cannot install ${spec.pkg}@${version} into ${dir}: ${why || String(err)}`);
  }
  if (!fs.existsSync(bin)) throw new Error(`${spec.pkg}@${version} has no "${spec.bin}" executable`);
  return bin;
}

// `npx tsx test/tools/install.ts [--latest]`: what CI runs before `npm test`.
if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const latest = process.argv.includes('--latest');
  await Promise.all(
    [...TOOLS, ...ACP_AGENTS].map(async (spec: ToolSpec<string>) => {
      const version = latest ? latestVersion(spec) : spec.pinned;
      console.log(`tools: ${spec.pkg}@${version} → ${await ensureTool(spec, version)}`);
    }),
  );
}
