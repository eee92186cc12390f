// A stand-in for Anthropic's Messages API, as far as Claude Code uses it: POST /v1/messages
// (streaming SSE with text and tool_use blocks — the tool input arrives as input_json_delta — and
// the plain JSON answer for non-streaming calls) and POST /v1/messages/count_tokens. Point Claude
// Code at it with ANTHROPIC_BASE_URL=<url> and any ANTHROPIC_API_KEY.
import type { ServerResponse } from 'node:http';
import {
  sendJson,
  serveStandIn,
  startSse,
  textOf,
  writeHeld,
  nextId,
  type Reply,
  type StandIn,
  type StandInOptions,
  type StandInRequest,
  type Turn,
} from './core';

interface AnthropicBody {
  model?: string;
  stream?: boolean;
  tools?: { name?: string }[];
  messages?: { role: string; content: unknown }[];
}

function turnOf(req: StandInRequest): Turn {
  const body = (req.body ?? {}) as AnthropicBody;
  const messages = body.messages ?? [];
  const toolResults: string[] = [];
  for (const m of messages)
    if (Array.isArray(m.content))
      for (const part of m.content as { type?: string; content?: unknown }[])
        if (part.type === 'tool_result') toolResults.push(textOf(part.content));
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  const userText = Array.isArray(lastUser?.content)
    ? textOf((lastUser.content as { type?: string }[]).filter((p) => p.type === 'text'))
    : textOf(lastUser?.content);
  return {
    tools: (body.tools ?? []).map((t) => t.name ?? ''),
    userText,
    toolResults,
    stream: body.stream === true,
    request: req,
  };
}

const frame = (type: string, data: Record<string, unknown>) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

function message(model: string, content: unknown[], stopReason: string | null) {
  return {
    id: nextId('msg_'),
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: {
      input_tokens: 12,
      output_tokens: stopReason ? 8 : 1,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    },
  };
}

async function stream(res: ServerResponse, model: string, r: Reply): Promise<void> {
  startSse(res);
  res.write(frame('message_start', { message: message(model, [], null) }));
  if (r.kind === 'text') {
    res.write(frame('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }));
    const finished = await writeHeld(
      res,
      r.text,
      r.gate,
      (text) => res.write(frame('content_block_delta', { index: 0, delta: { type: 'text_delta', text } })),
      r.paced,
    );
    if (!finished) return;
  } else {
    res.write(
      frame('content_block_start', {
        index: 0,
        content_block: { type: 'tool_use', id: r.id, name: r.name, input: {} },
      }),
    );
    // The input in two pieces, as the real API streams partial JSON.
    const json = JSON.stringify(r.input);
    const half = Math.floor(json.length / 2);
    for (const partial_json of [json.slice(0, half), json.slice(half)])
      res.write(
        frame('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json } }),
      );
  }
  res.write(frame('content_block_stop', { index: 0 }));
  const stop = r.kind === 'call' ? 'tool_use' : 'end_turn';
  res.write(
    frame('message_delta', {
      delta: { stop_reason: stop, stop_sequence: null },
      usage: { output_tokens: 8 },
    }),
  );
  res.end(frame('message_stop', {}));
}

function whole(res: ServerResponse, model: string, r: Reply): void {
  const content =
    r.kind === 'text'
      ? [{ type: 'text', text: r.text }]
      : [{ type: 'tool_use', id: r.id, name: r.name, input: r.input }];
  sendJson(res, 200, message(model, content, r.kind === 'call' ? 'tool_use' : 'end_turn'));
}

/** Starts the Anthropic stand-in. Claude Code's MCP tools arrive as `mcp__sightline__<tool>`. */
export function startAnthropicStandIn(opts: StandInOptions = {}): Promise<StandIn> {
  return serveStandIn(opts, async (req, res, reply) => {
    const path = req.url.split('?')[0];
    if (req.method !== 'POST') return false;
    if (path === '/v1/messages/count_tokens') {
      sendJson(res, 200, { input_tokens: JSON.stringify(req.body ?? '').length >> 2 });
      return true;
    }
    if (path !== '/v1/messages') return false;
    const turn = turnOf(req);
    const model = (req.body as AnthropicBody).model ?? 'claude-sonnet-4-5';
    const r = reply(turn);
    if (turn.stream) await stream(res, model, r);
    else whole(res, model, r);
    return true;
  });
}
