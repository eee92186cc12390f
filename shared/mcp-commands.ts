// The one command per tool that connects an agent a person runs in a terminal to Sightline's MCP
// endpoint (shown by Settings once, with the secret; the README shows the same shapes).

/** Single-quotes a word for a POSIX shell when it needs it. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Claude Code: one command, the secret in a header. */
export function claudeCommand(url: string, secret: string): string {
  return `claude mcp add --transport http sightline ${shellWord(url)} --header ${shellWord(`Authorization: Bearer ${secret}`)}`;
}

/** Codex reads a bearer token from an environment variable (it refuses one written inline). */
export function codexCommands(url: string, secret: string): string[] {
  return [
    `export SIGHTLINE_MCP_TOKEN=${shellWord(secret)}`,
    `codex mcp add sightline --url ${shellWord(url)} --bearer-token-env-var SIGHTLINE_MCP_TOKEN`,
  ];
}

/** Any agent that speaks stdio MCP only: the shim, with the secret in its environment. */
export function shimCommand(command: string[], secret: string): string {
  return [`SIGHTLINE_MCP_SECRET=${shellWord(secret)}`, ...command.map(shellWord)].join(' ');
}
