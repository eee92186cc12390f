// A stand-in for OpenAI's Responses API, as far as Codex uses it: POST /v1/responses streamed as
// SSE (response.created, output items with output_text deltas or a function_call, then
// response.completed with usage). Codex reaches it through a model provider of its config.toml
// with `base_url = "<url>/v1"` and `wire_api = "responses"`.
import type { ServerResponse } from 'node:http';
import {
  nextId,
  serveStandIn,
  startSse,
  textOf,
  writeHeld,
  type Reply,
  type StandIn,
  type StandInOptions,
  type StandInRequest,
  type Turn,
} from './core';

interface ResponsesItem {
  type?: string;
  role?: string;
  content?: unknown;
  output?: unknown;
}
interface ResponsesTool {
  type?: string;
  name?: string;
  /** A namespace (Codex groups each MCP server's tools in one: `mcp__sightline`). */
  tools?: ResponsesTool[];
}
interface ResponsesBody {
  model?: string;
  stream?: boolean;
  tools?: ResponsesTool[];
  input?: ResponsesItem[] | string;
}

/** A namespace's tools as `<namespace>__<tool>`, how Codex names them to the person. */
const toolNames = (t: ResponsesTool): string[] =>
  t.type === 'namespace'
    ? (t.tools ?? []).flatMap((x) => toolNames(x).map((n) => `${t.name}__${n}`))
    : t.name
      ? [t.name]
      : [];

/** A call of a namespaced tool names the tool and its namespace apart. */
function callName(body: ResponsesBody, full: string): { name: string; namespace?: string } {
  const ns = (body.tools ?? []).find((t) => t.type === 'namespace' && full.startsWith(`${t.name}__`));
  return ns?.name ? { name: full.slice(ns.name.length + 2), namespace: ns.name } : { name: full };
}

function turnOf(req: StandInRequest): Turn {
  const body = (req.body ?? {}) as ResponsesBody;
  const input =
    typeof body.input === 'string'
      ? [{ type: 'message', role: 'user', content: body.input }]
      : (body.input ?? []);
  const outputText = (o: unknown) =>
    typeof o === 'string' ? o : textOf((o as { content?: unknown })?.content ?? o);
  const toolResults = input.filter((i) => i.type === 'function_call_output').map((i) => outputText(i.output));
  const lastUser = [...input].reverse().find((i) => i.role === 'user');
  return {
    tools: (body.tools ?? []).flatMap((t) => toolNames(t)),
    userText: textOf(lastUser?.content),
    toolResults,
    stream: body.stream === true,
    request: req,
  };
}

const event = (type: string, data: Record<string, unknown>) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

async function stream(res: ServerResponse, body: ResponsesBody, r: Reply): Promise<void> {
  const model = body.model ?? 'gpt-5';
  const id = nextId('resp_');
  startSse(res);
  res.write(
    event('response.created', {
      response: { id, object: 'response', model, status: 'in_progress', output: [] },
    }),
  );
  let item: Record<string, unknown>;
  if (r.kind === 'text') {
    const itemId = nextId('msg_');
    res.write(
      event('response.output_item.added', {
        output_index: 0,
        item: { id: itemId, type: 'message', role: 'assistant', status: 'in_progress', content: [] },
      }),
    );
    const finished = await writeHeld(res, r.text, r.gate, (delta) =>
      res.write(
        event('response.output_text.delta', { item_id: itemId, output_index: 0, content_index: 0, delta }),
      ),
    );
    if (!finished) return;
    item = {
      id: itemId,
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: r.text, annotations: [] }],
    };
  } else {
    item = {
      id: nextId('fc_'),
      type: 'function_call',
      status: 'completed',
      call_id: r.id,
      ...callName(body, r.name),
      arguments: JSON.stringify(r.input),
    };
    res.write(event('response.output_item.added', { output_index: 0, item: { ...item, arguments: '' } }));
  }
  res.write(event('response.output_item.done', { output_index: 0, item }));
  const usage = {
    input_tokens: 12,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 8,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 20,
  };
  res.end(
    event('response.completed', {
      response: { id, object: 'response', model, status: 'completed', output: [item], usage },
    }),
  );
}

/** Starts the Responses stand-in (Codex). Codex offers MCP tools in a namespace `mcp__sightline`. */
export function startResponsesStandIn(opts: StandInOptions = {}): Promise<StandIn> {
  return serveStandIn(opts, async (req, res, reply) => {
    if (req.method !== 'POST' || req.url.split('?')[0] !== '/v1/responses') return false;
    const turn = turnOf(req);
    await stream(res, req.body as ResponsesBody, reply(turn));
    return true;
  });
}
