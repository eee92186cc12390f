// MCP test clients: the official SDK's client over streamable HTTP (as Claude Code or Codex would
// connect with a Settings credential) and over stdio through Sightline's shim.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export interface McpTestClient {
  client: Client;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

function wrap(client: Client): McpTestClient {
  return {
    client,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    close: () => client.close(),
  };
}

export async function httpClient(
  url: string,
  secret: string,
  name = 'test-terminal-agent',
): Promise<McpTestClient> {
  const client = new Client({ name, version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${secret}` } },
  });
  await client.connect(transport);
  return wrap(client);
}

export async function stdioClient(
  command: string[],
  secret: string,
  name = 'test-stdio-agent',
): Promise<McpTestClient> {
  const [cmd, ...args] = command;
  const client = new Client({ name, version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: cmd!,
    args,
    env: { SIGHTLINE_MCP_SECRET: secret, PATH: process.env.PATH ?? '' },
    stderr: 'pipe',
  });
  await client.connect(transport);
  return wrap(client);
}

/** The text of a result's content blocks. */
export const texts = (r: CallToolResult): string[] =>
  r.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`));
