// A stand-in for OpenAI's Chat Completions API, as far as OpenCode's custom (OpenAI-compatible)
// providers use it: POST /v1/chat/completions, streamed as chat.completion.chunk frames (text
// deltas, or one tool call whose arguments arrive in two pieces, then a usage chunk and [DONE]),
// or answered whole when not streaming. OpenCode reaches it through a provider in opencode.json
// with `npm: "@ai-sdk/openai-compatible"` and `options.baseURL = "<url>/v1"`.
import type { ServerResponse } from 'node:http';
import {
  nextId,
  sendJson,
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

interface ChatBody {
  model?: string;
  stream?: boolean;
  tools?: { function?: { name?: string } }[];
  messages?: { role: string; content: unknown }[];
}

function turnOf(req: StandInRequest): Turn {
  const body = (req.body ?? {}) as ChatBody;
  const messages = body.messages ?? [];
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  return {
    tools: (body.tools ?? []).flatMap((t) => (t.function?.name ? [t.function.name] : [])),
    userText: textOf(lastUser?.content),
    toolResults: messages.filter((m) => m.role === 'tool').map((m) => textOf(m.content)),
    stream: body.stream === true,
    request: req,
  };
}

async function stream(res: ServerResponse, model: string, r: Reply): Promise<void> {
  const base = {
    id: nextId('chatcmpl-'),
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model,
  };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  startSse(res);
  res.write(chunk({ role: 'assistant', content: '' }));
  if (r.kind === 'text') {
    const finished = await writeHeld(res, r.text, r.gate, (content) => res.write(chunk({ content })));
    if (!finished) return;
    res.write(chunk({}, 'stop'));
  } else {
    const args = JSON.stringify(r.input);
    const half = Math.floor(args.length / 2);
    res.write(
      chunk({
        tool_calls: [
          {
            index: 0,
            id: r.id,
            type: 'function',
            function: { name: r.name, arguments: args.slice(0, half) },
          },
        ],
      }),
    );
    res.write(chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(half) } }] }));
    res.write(chunk({}, 'tool_calls'));
  }
  const usage = { prompt_tokens: 12, completion_tokens: 8, total_tokens: 20 };
  res.write(`data: ${JSON.stringify({ ...base, choices: [], usage })}\n\n`);
  res.end('data: [DONE]\n\n');
}

function whole(res: ServerResponse, model: string, r: Reply): void {
  const message =
    r.kind === 'text'
      ? { role: 'assistant', content: r.text }
      : {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: r.id, type: 'function', function: { name: r.name, arguments: JSON.stringify(r.input) } },
          ],
        };
  sendJson(res, 200, {
    id: nextId('chatcmpl-'),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message, finish_reason: r.kind === 'call' ? 'tool_calls' : 'stop' }],
    usage: { prompt_tokens: 12, completion_tokens: 8, total_tokens: 20 },
  });
}

/** Starts the Chat Completions stand-in (OpenCode). OpenCode names MCP tools `sightline_<tool>`. */
export function startChatStandIn(opts: StandInOptions = {}): Promise<StandIn> {
  return serveStandIn(opts, async (req, res, reply) => {
    if (req.method !== 'POST' || req.url.split('?')[0] !== '/v1/chat/completions') return false;
    const turn = turnOf(req);
    const model = (req.body as ChatBody).model ?? 'standin';
    if (turn.stream) await stream(res, model, reply(turn));
    else whole(res, model, reply(turn));
    return true;
  });
}
