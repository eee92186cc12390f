// The light stand-in ACP agent of the live-sessions benchmark (acp-live.bench.ts, issue 31): an
// agent process as small as Node makes one, speaking ACP (JSON-RPC 2.0, one message a line) over
// stdio by hand. The official SDK would make each of the 200 processes 60 MB instead of 40 MB
// (20 MB of its own heap each); the gateway's side of the pipe is the product's, SDK and all.
// A prompt whose text says "stream N every M ms" is answered with N agent_message_chunk updates,
// one every M ms (the first after a random part of M, as independent agents are not in step),
// each one line "seq <n> sent <epoch ms>\n", then stopReason end_turn. Any other prompt gets one
// line "ready\n". session/cancel stops the stream (stopReason cancelled). The argv is not read:
// the benchmark passes a run token there only to find its processes in /proc afterwards.
import process from 'node:process';
import { clearInterval, clearTimeout, setInterval, setTimeout } from 'node:timers';

const STREAM = /stream (\d+) every (\d+) ms/;
/** The prompt streaming now, if any: its request id and how to stop it. */
let running;

const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
const chunk = (sessionId, text) =>
  send({
    method: 'session/update',
    params: { sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } },
  });

function prompt(id, params) {
  const text = (params.prompt ?? []).map((b) => (b.type === 'text' ? b.text : '')).join('\n');
  const found = STREAM.exec(text);
  if (!found) {
    chunk(params.sessionId, 'ready\n');
    return send({ id, result: { stopReason: 'end_turn' } });
  }
  const [count, every] = [Number(found[1]), Number(found[2])];
  let seq = 0;
  let timer;
  const tick = () => {
    seq++;
    chunk(params.sessionId, `seq ${seq} sent ${Date.now()}\n`);
    if (seq < count) return;
    clearInterval(timer);
    running = undefined;
    send({ id, result: { stopReason: 'end_turn' } });
  };
  const start = setTimeout(
    () => {
      timer = setInterval(tick, every);
      tick();
    },
    Math.floor(Math.random() * every),
  );
  running = {
    id,
    stop() {
      clearTimeout(start);
      clearInterval(timer);
    },
  };
}

function handle(m) {
  if (typeof m.method !== 'string') return; // an answer to a request of ours: we make none
  const p = m.params ?? {};
  switch (m.method) {
    case 'initialize':
      return send({
        id: m.id,
        result: {
          protocolVersion: p.protocolVersion,
          agentCapabilities: {},
          authMethods: [],
          agentInfo: { name: 'bench-stream-agent', version: '1.0.0' },
        },
      });
    case 'session/new':
      return send({ id: m.id, result: { sessionId: 'bench-session' } });
    case 'session/prompt':
      return prompt(m.id, p);
    case 'session/cancel': {
      const r = running;
      running = undefined;
      r?.stop();
      return r && send({ id: r.id, result: { stopReason: 'cancelled' } });
    }
    default:
      if (m.id !== undefined)
        send({ id: m.id, error: { code: -32601, message: `Method not found: ${m.method}` } });
  }
}

let rest = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (data) => {
  const lines = (rest + data).split('\n');
  rest = lines.pop();
  for (const line of lines) if (line.trim()) handle(JSON.parse(line));
});
// The gateway closed the pipe: this agent's session is over.
process.stdin.on('end', () => process.exit(0));
