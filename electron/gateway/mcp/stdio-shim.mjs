/* global fetch -- Node 18+ has fetch; the shared eslint config declares no Node globals for .mjs */
// Sightline's stdio MCP shim, for agents that speak MCP over stdio only. It reads JSON-RPC
// messages, one per line, from stdin, posts each to Sightline's streamable-HTTP endpoint (the
// first argument) with the secret from SIGHTLINE_MCP_SECRET (never on a command line), and writes
// each answer as one line to stdout. Sightline answers in JSON, never a stream, so there is nothing
// else to relay. No dependencies: any Node 18+ runs it. A refused credential (revoked, its session
// deleted) answers every request with an error naming that, and the shim keeps running so the
// agent can say why its tools stopped.
import process from 'node:process';
import readline from 'node:readline';

const url = process.argv[2];
const secret = process.env.SIGHTLINE_MCP_SECRET;
if (!url || !/^http:\/\/(127\.0\.0\.1|localhost):\d+\/mcp$/.test(url) || !secret) {
  process.stderr.write(
    'usage: SIGHTLINE_MCP_SECRET=<secret> node stdio-shim.mjs http://127.0.0.1:<port>/mcp\n',
  );
  process.exit(2);
}

const write = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
const REFUSED = -32001;
let protocolVersion;

function answerError(id, message, code = REFUSED) {
  // A notification (no id) gets no answer, as JSON-RPC says.
  if (id !== undefined) write({ jsonrpc: '2.0', id, error: { code, message } });
}

async function forward(line) {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return write({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
  }
  const id = message && typeof message === 'object' && !Array.isArray(message) ? message.id : undefined;
  let res;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${secret}`,
        ...(protocolVersion ? { 'mcp-protocol-version': protocolVersion } : {}),
      },
      body: line,
    });
  } catch (err) {
    return answerError(
      id,
      `Sightline is not reachable at ${url}: ${err instanceof Error ? err.message : err}`,
    );
  }
  if (res.status === 401) {
    return answerError(
      id,
      'Sightline refused the credential (401): it was revoked or its session was deleted',
    );
  }
  if (res.status === 202) return; // a notification was accepted
  let answer;
  try {
    answer = JSON.parse(await res.text());
  } catch {
    return answerError(id, `Sightline answered HTTP ${res.status} without a readable body`);
  }
  if (!res.ok && answer && typeof answer === 'object' && !Array.isArray(answer) && answer.error) {
    // Errors about the HTTP request itself carry id null: give them back the request's id.
    return answerError(id, String(answer.error.message ?? `HTTP ${res.status}`), answer.error.code);
  }
  if (message?.method === 'initialize' && answer?.result?.protocolVersion)
    protocolVersion = answer.result.protocolVersion;
  for (const m of Array.isArray(answer) ? answer : [answer]) write(m);
}

const inflight = new Set();
const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on('line', (line) => {
  if (!line.trim()) return;
  const p = forward(line).finally(() => inflight.delete(p));
  inflight.add(p);
});
lines.on('close', () => {
  void Promise.allSettled([...inflight]).then(() => process.exit(0));
});
