// The MCP protocol side, through the official SDK: one low-level Server per request (stateless
// streamable HTTP, JSON answers), offering the gateway's tool registry as MCP tools. Stateless on
// purpose: a client that outlives a restart of Sightline just keeps calling, with no session to
// re-establish, and a revoked credential is refused on its very next request.
import type http from 'node:http';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolResult } from '../types';

/**
 * The SDK (its HTTP transport and zod with it, about 26 MB) loads at the first MCP request, not
 * when the gateway starts (issue 31.3): most starts never serve one before the person acts.
 */
const loadSdk = () =>
  Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);

export const SERVER_INFO = { name: 'sightline', version: '0.1.0' };

const INSTRUCTIONS =
  'Sightline session tools. You act as your own Sightline session: spawn sub-agents, send to other ' +
  'sessions (watch: true to be told when another actor changes them), list sessions, read ' +
  'history. When told a session changed, reconcile with session_status changesSince before acting.';

export interface ToolHandlers {
  list(): Tool[];
  call(name: string, args: Record<string, unknown> | undefined, signal: AbortSignal): Promise<CallToolResult>;
}

/**
 * A tool result as MCP has it: one text content with the tool's text and structuredContent with
 * its details; an error is isError with the tool's exact text. `head` (drained notices) comes first.
 */
export function toCallToolResult(
  result: ToolResult,
  head?: { text: string; notices: string[] },
): CallToolResult {
  const lead = head ? [{ type: 'text' as const, text: head.text }] : [];
  if (!result.ok) return { content: [...lead, { type: 'text', text: result.error }], isError: true };
  const details = result.details;
  const structured =
    details !== null && typeof details === 'object' && !Array.isArray(details)
      ? (details as Record<string, unknown>)
      : { value: details };
  return {
    content: [...lead, { type: 'text', text: result.text }],
    // Clients that read only structuredContent (Codex does) see the notices first there too.
    structuredContent: head ? { notices: head.notices, ...structured } : structured,
  };
}

export async function serveMcp(
  handlers: ToolHandlers,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  body: unknown,
): Promise<void> {
  const [{ Server }, { StreamableHTTPServerTransport }, { CallToolRequestSchema, ListToolsRequestSchema }] =
    await loadSdk();
  const server = new Server(SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: handlers.list() }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    handlers.call(request.params.name, request.params.arguments, extra.signal),
  );
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}
