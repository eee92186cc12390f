// What a registry agent needs in its environment before it can do real work, so Add can ask for
// it: the variable its API key goes into, the one that moves its endpoint, and whether it refuses
// to run as root without `IS_SANDBOX=1` (Claude Code does: "--dangerously-skip-permissions cannot
// be used with root/sudo privileges"). Known by the npm package the entry runs; an agent not
// listed here still gets the "extra variables" fields.
import type { AgentNeeds } from '../../../../shared/ipc/agents';
/** The part of a registry entry its needs are read from (installers/format.ts's RegistryEntry). */
interface RegistryEntry {
  id: string;
  version: string;
  npx?: { package: string };
  uvx?: { package: string };
}

interface Known {
  pkg: RegExp;
  needs: Omit<AgentNeeds, 'sandboxAsRoot'>;
  /** Refuses to run as root unless IS_SANDBOX=1. */
  rootNeedsSandbox?: boolean;
}

const KNOWN: Known[] = [
  {
    pkg: /(zed-industries|agentclientprotocol)\/claude-(agent|code)-acp(@|\/|$)/,
    needs: {
      apiKeyEnv: 'ANTHROPIC_API_KEY',
      baseUrlEnv: 'ANTHROPIC_BASE_URL',
      note: 'Without a key, Claude Code uses the login of `claude /login` on this computer.',
    },
    rootNeedsSandbox: true,
  },
  {
    pkg: /(zed-industries|agentclientprotocol)\/codex-acp(@|\/|$)|(^|\/)codex-acp(\.exe)?$/,
    needs: {
      apiKeyEnv: 'OPENAI_API_KEY',
      baseUrlEnv: 'OPENAI_BASE_URL',
      note: 'Without a key, Codex uses the login of `codex login` on this computer.',
    },
  },
  {
    pkg: /@google\/gemini-cli(@|\/|$)/,
    needs: {
      apiKeyEnv: 'GEMINI_API_KEY',
      baseUrlEnv: 'GOOGLE_GEMINI_BASE_URL',
      note: 'Without a key, Gemini CLI uses the Google login it saved on this computer.',
    },
  },
  {
    pkg: /@qwen-code\/qwen-code(@|\/|$)/,
    needs: { apiKeyEnv: 'OPENAI_API_KEY', baseUrlEnv: 'OPENAI_BASE_URL' },
  },
  {
    pkg: /(^|\/)opencode-ai(@|\/|$)/,
    needs: {
      note: 'OpenCode takes its providers from `opencode auth login` or its opencode.json; add their variables (e.g. ANTHROPIC_API_KEY) below.',
    },
  },
];

const runningAsRoot = () => process.getuid?.() === 0;

/** The needs of one registry entry (through npx or uvx; a binary is known by its id only). */
export function agentNeeds(entry: RegistryEntry, asRoot = runningAsRoot()): AgentNeeds {
  const pkg = entry.npx?.package ?? entry.uvx?.package ?? `${entry.id}@${entry.version}`;
  const known = KNOWN.find((k) => k.pkg.test(pkg));
  if (!known) return {};
  return { ...known.needs, ...(known.rootNeedsSandbox && asRoot ? { sandboxAsRoot: true } : {}) };
}

/** The needs of a profile's command line (a registry install, or a hand-written npx/path). */
export function needsOfCommand(
  command: string,
  args: readonly string[],
  asRoot = runningAsRoot(),
): AgentNeeds {
  const known = KNOWN.find((k) => [command, ...args].some((a) => k.pkg.test(a)));
  if (!known) return {};
  return { ...known.needs, ...(known.rootNeedsSandbox && asRoot ? { sandboxAsRoot: true } : {}) };
}
