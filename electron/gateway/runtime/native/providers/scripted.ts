// The built-in deterministic model: no network, believable roles read from the transcript.
// A coordinator splits a task into sub-agents, reconciles with session_status when a stale-state
// notice arrives, and says what changed; a worker progresses through steps over time and finishes,
// fails ("[fail]" in its task) or runs until cancelled or timed out ("[hang]").
import {
  ModelAbortedError,
  ModelProviderError,
  type ModelMessage,
  type ModelProvider,
  type ModelRequest,
  type ModelResponse,
  type ModelToolCall,
} from './types';

const NOTICE_RE =
  /Session "([^"]+)" changed \(other actor\)\. Reconcile before acting: session_status sessionKey "([^"]+)" changesSince (\d+)\./g;

export interface ScriptedSettings {
  /** Milliseconds per worker step (default 1500). */
  stepMs: number;
  /** Steps a worker takes (default 3). */
  steps: number;
  /** Tokens a worker streams per step, evenly over the step (default 6; live output). */
  tokensPerStep: number;
}

export function createScriptedProvider(settings: Record<string, string> = {}): ModelProvider {
  const cfg: ScriptedSettings = {
    stepMs: nonNegative(settings.stepMs, 1500),
    steps: Math.max(1, nonNegative(settings.steps, 3)),
    tokensPerStep: Math.max(1, nonNegative(settings.tokensPerStep, 6)),
  };
  let calls = 0;
  return {
    id: 'scripted',
    async complete(req) {
      if (req.signal.aborted) throw new ModelAbortedError();
      calls++;
      const worker = /^Role: worker\b/m.test(req.system);
      const out = worker ? await workerStep(req, cfg) : coordinatorStep(req, calls);
      // A coordinator answers at once; its reply and tool calls still stream as a model's would.
      if (!worker) {
        if (out.text) req.onDelta?.(out.text);
        for (const c of out.toolCalls) req.onToolCall?.(c.name);
      }
      return answer(out);
    },
  };
}

type Step = { text: string; toolCalls: ModelToolCall[] };

function coordinatorStep(req: ModelRequest, n: number): Step {
  const reply = afterTools(req.messages);
  if (reply) return reply;
  const reconcile = reconcileCalls(req, n);
  if (reconcile) return reconcile;
  const announcements = [
    ...req.system.matchAll(/\[child run (completed|failed|timed out|cancelled)\] (\S+)/g),
  ];
  if (announcements.length) {
    return say(announcements.map((a) => `Worker ${a[2]} ${a[1]}.`).join(' ') + ' I have updated the plan.');
  }
  const last = lastUser(req.messages);
  // A question is answered, not split into work.
  const question = last !== undefined && last.content.trim().endsWith('?');
  if (last && !question && !last.content.startsWith('[') && !hasSpawned(req.messages)) {
    const parts = splitTask(last.content);
    return {
      text: `I will split this into ${parts.length} sub-tasks and watch the workers.`,
      toolCalls: parts.map((task, i) => ({
        id: `call_${n}_${i}`,
        name: 'sessions_spawn',
        arguments: { task, label: labelFor(task, i) },
      })),
    };
  }
  if (last && !req.system.includes('System events:'))
    return say(`Acknowledged: ${oneLine(last.content, 120)}`);
  return say('Nothing has changed since my last turn.');
}

async function workerStep(req: ModelRequest, cfg: ScriptedSettings): Promise<Step> {
  const reply = afterTools(req.messages);
  if (reply) return reply;
  const reconcile = reconcileCalls(req, 0);
  if (reconcile) return reconcile;
  const users = req.messages.filter((m) => m.role === 'user');
  const answered = req.messages.some((m) => m.role === 'assistant');
  const last = users[users.length - 1];
  const first = users[0];
  if (!answered && first) {
    const task = first.content.replace(/^\[message from [^\]]+\] /, '');
    const hang = task.includes('[hang]');
    req.onThinking?.(`Planning ${cfg.steps} steps for: ${oneLine(task, 80)}`);
    for (let i = 1; hang || i <= cfg.steps; i++) {
      // The step's progress streams token by token while it works (live output).
      const words = `Step ${i}/${cfg.steps}: working on ${oneLine(task, 60)}`.split(' ');
      const tokens = Array.from({ length: cfg.tokensPerStep - 1 }, (_, j) => words[j] ?? '…');
      tokens.push(`done.\n`);
      for (const [t, token] of tokens.entries()) {
        await sleep(cfg.stepMs / tokens.length, req.signal);
        if (!hang) req.onDelta?.(t === 0 ? token : ` ${token}`);
      }
      if (task.includes('[fail]') && i === Math.min(2, cfg.steps)) {
        throw new ModelProviderError(`scripted worker failed at step ${i} of ${cfg.steps}`);
      }
    }
    return say(`Finished: ${oneLine(task, 120)}. All ${cfg.steps} steps done.`);
  }
  if (last && !last.content.startsWith('['))
    return say(`Understood, I will follow your instruction: "${oneLine(last.content, 200)}"`);
  return say('Acknowledged.');
}

/** When the last messages are tool results, answer from them. */
function afterTools(messages: ModelMessage[]): Step | undefined {
  const results: ModelMessage[] = [];
  for (let i = messages.length - 1; i >= 0 && messages[i]!.role === 'tool'; i--)
    results.unshift(messages[i]!);
  if (results.length === 0) return undefined;
  // The calls these results answer: a spawned child is named by the label it was given.
  const calls = new Map(messages.flatMap((m) => m.toolCalls ?? []).map((c) => [c.id, c]));
  const lines: string[] = [];
  for (const r of results) {
    if (r.toolName === 'session_status') lines.push(describeStatus(r.content));
    else if (r.toolName === 'sessions_spawn') {
      const key = /"childSessionKey":"([^"]+)"/.exec(r.content)?.[1];
      const label = (calls.get(r.toolCallId ?? '')?.arguments as { label?: unknown } | undefined)?.label;
      const name = typeof label === 'string' && label ? `“${label}”` : key;
      lines.push(key ? `Spawned ${name}.` : `Spawn failed: ${oneLine(r.content, 120)}`);
    } else lines.push(`${r.toolName ?? 'tool'}: ${oneLine(r.content, 160)}`);
  }
  return say(lines.join(' '));
}

/**
 * The reconcile in a person's words: the session by its label (its key when it has none), what
 * changed and who did it; no sequence numbers, which are the log's, not the session's.
 */
function describeStatus(content: string): string {
  try {
    const d = JSON.parse(content) as {
      sessionKey: string;
      label?: string;
      stateChanges?: {
        events: { kind: string; actorType: string; summary: string }[];
        historyGap: boolean;
      };
    };
    const name = d.label ? `“${d.label}”` : d.sessionKey;
    const events = d.stateChanges?.events ?? [];
    if (d.stateChanges?.historyGap)
      return `Reconciled ${name}: its older history was pruned, so I re-read the whole session.`;
    if (!events.length) return `Reconciled ${name}: nothing changed since my last look.`;
    const what = events.map(
      (e) => `${e.summary} (by ${e.actorType === 'human' ? 'a human' : `the ${e.actorType}`})`,
    );
    const human = events.some((e) => e.actorType === 'human')
      ? ' A human intervened directly in that session, so I will take their instruction into account before acting.'
      : '';
    const count = `${events.length} change${events.length === 1 ? '' : 's'}`;
    return `Reconciled ${name}: ${count} — ${what.join('; ')}.${human}`;
  } catch {
    return `session_status: ${oneLine(content, 160)}`;
  }
}

function reconcileCalls(req: ModelRequest, n: number): Step | undefined {
  const seen = new Set<string>();
  const calls: ModelToolCall[] = [];
  for (const m of req.system.matchAll(NOTICE_RE)) {
    const key = m[2]!;
    if (seen.has(key)) continue;
    seen.add(key);
    calls.push({
      id: `call_r${n}_${calls.length}`,
      name: 'session_status',
      arguments: { sessionKey: key, changesSince: Number(m[3]) },
    });
  }
  return calls.length
    ? { text: 'Another actor changed a session I watch; reconciling before I act.', toolCalls: calls }
    : undefined;
}

function splitTask(task: string): string[] {
  const parts = task
    .replace(/^[^:]*:\s*/, (m) => (m.length < 60 ? '' : m))
    .split(/\s*(?:;|,\s*and\s+|,|\band then\b|\bthen\b)\s*/i)
    .map((p) => p.trim().replace(/\.$/, ''))
    .filter((p) => p.length > 2);
  if (parts.length >= 2) return parts.slice(0, 5);
  const t = oneLine(task, 200);
  return [`Research: ${t}`, `Draft: ${t}`, `Review: ${t}`];
}

function labelFor(task: string, i: number): string {
  const word = /^[A-Za-z]+/.exec(task)?.[0];
  return word ? `${word.toLowerCase()} worker` : `worker ${i + 1}`;
}

const hasSpawned = (messages: ModelMessage[]) =>
  messages.some((m) => m.toolCalls?.some((c) => c.name === 'sessions_spawn'));
const lastUser = (messages: ModelMessage[]) => [...messages].reverse().find((m) => m.role === 'user');
const say = (text: string): Step => ({ text, toolCalls: [] });
const oneLine = (s: string, max: number) => {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
};

/**
 * A scripted agent is not a model: it reports no usage. (It once reported characters ÷ 4 as
 * tokens, and the demo's headers showed invented counts as if a model had used them.)
 */
function answer(step: Step): ModelResponse {
  return {
    text: step.text,
    toolCalls: step.toolCalls,
    usage: { inputTokens: 0, outputTokens: 0 },
    stopReason: step.toolCalls.length ? 'tool_calls' : 'end',
  };
}

function nonNegative(raw: string | undefined, fallback: number): number {
  const n = raw === undefined ? NaN : Number(raw);
  return Number.isFinite(n) && n >= 0 ? Math.floor(n) : fallback;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new ModelAbortedError());
    const onAbort = () => {
      clearTimeout(t);
      reject(new ModelAbortedError());
    };
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
