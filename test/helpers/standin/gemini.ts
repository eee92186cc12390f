// A stand-in for the Gemini API, as far as Gemini CLI uses it: POST
// /v1beta/models/<model>:streamGenerateContent?alt=sse (SSE of GenerateContentResponse chunks:
// text parts, or a functionCall part) and :generateContent (the same answer whole; Gemini CLI's
// side requests — the next-speaker check among them — ask for JSON and get `aside`), and
// :countTokens. Gemini CLI reaches it with GOOGLE_GEMINI_BASE_URL=<url> and any GEMINI_API_KEY.
import type { ServerResponse } from 'node:http';
import {
  sendJson,
  serveStandIn,
  startSse,
  writeHeld,
  type Reply,
  type StandIn,
  type StandInOptions,
  type StandInRequest,
  type Turn,
} from './core';

interface Part {
  text?: string;
  functionCall?: unknown;
  functionResponse?: { name?: string; response?: unknown };
}
interface GeminiBody {
  contents?: { role?: string; parts?: Part[] }[];
  tools?: { functionDeclarations?: { name?: string }[] }[];
}

function turnOf(req: StandInRequest, stream: boolean): Turn {
  const body = (req.body ?? {}) as GeminiBody;
  const contents = body.contents ?? [];
  const toolResults = contents.flatMap((c) =>
    (c.parts ?? []).flatMap((p) =>
      p.functionResponse ? [JSON.stringify(p.functionResponse.response ?? null)] : [],
    ),
  );
  const lastUser = [...contents].reverse().find((c) => c.role === 'user' && c.parts?.some((p) => p.text));
  return {
    tools: (body.tools ?? []).flatMap((t) => (t.functionDeclarations ?? []).map((f) => f.name ?? '')),
    userText: (lastUser?.parts ?? []).map((p) => p.text ?? '').join(''),
    toolResults,
    stream,
    request: req,
  };
}

const usageMetadata = { promptTokenCount: 12, candidatesTokenCount: 8, totalTokenCount: 20 };
const chunk = (parts: Part[], finishReason?: string) => ({
  candidates: [{ index: 0, content: { role: 'model', parts }, ...(finishReason ? { finishReason } : {}) }],
  usageMetadata,
  modelVersion: 'gemini-standin',
});

const partsOf = (r: Reply): Part[] =>
  r.kind === 'text' ? [{ text: r.text }] : [{ functionCall: { id: r.id, name: r.name, args: r.input } }];

async function stream(res: ServerResponse, r: Reply): Promise<void> {
  startSse(res);
  const data = (body: unknown) => res.write(`data: ${JSON.stringify(body)}\r\n\r\n`);
  if (r.kind === 'text') {
    const finished = await writeHeld(res, r.text, r.gate, (text) => data(chunk([{ text }])));
    if (!finished) return;
    data(chunk([{ text: '' }], 'STOP'));
  } else data(chunk(partsOf(r), 'STOP'));
  res.end();
}

/** The next-speaker check and other JSON side requests: the user speaks next. */
const NEXT_SPEAKER = {
  text: JSON.stringify({ reasoning: 'the model finished its answer', next_speaker: 'user' }),
};

/** Starts the Gemini stand-in. Gemini CLI names MCP tools `<tool>` (or `sightline__<tool>` on a clash). */
export function startGeminiStandIn(opts: StandInOptions = {}): Promise<StandIn> {
  return serveStandIn({ aside: NEXT_SPEAKER, ...opts }, async (req, res, reply) => {
    const m = /^\/v1(?:beta|alpha)?\/models\/([^/:]+):(\w+)/.exec(req.url.split('?')[0] ?? '');
    if (req.method !== 'POST' || !m) return false;
    if (m[2] === 'countTokens') {
      sendJson(res, 200, { totalTokens: JSON.stringify(req.body ?? '').length >> 2 });
      return true;
    }
    if (m[2] === 'streamGenerateContent') await stream(res, reply(turnOf(req, true)));
    else if (m[2] === 'generateContent')
      sendJson(res, 200, chunk(partsOf(reply(turnOf(req, false))), 'STOP'));
    else return false;
    return true;
  });
}
