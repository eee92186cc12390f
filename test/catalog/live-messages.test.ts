// The seam for live adopted transcripts: a check hands over the visible messages (prompts,
// replies, tool calls in the transcript view's short form) of exactly the rows it consumed, in
// order, so appending them as the marker moves shows each message once. A line still being
// written, an oversized row or a retried check never shows anything twice or drops it.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WINDOW_BYTES } from '../../electron/gateway/catalog/kit/jsonl-probe';
import { line, makeHarness, type Harness } from './helpers';
import { CLAUDE_ID, PI_ID, claudeAssistant, claudeUser, piMessage, writeClaude, writePi } from './fixtures';

let h: Harness | undefined;
afterEach(() => {
  h?.cleanup();
  h = undefined;
});

const brief = (
  ms: { role: string; text: string; toolCalls?: { name: string }[]; own?: true }[] | undefined,
) =>
  (ms ?? []).map((m) => ({
    role: m.role,
    text: m.text,
    ...(m.toolCalls ? { calls: m.toolCalls.map((c) => c.name) } : {}),
    ...(m.own ? { own: true } : {}),
  }));

function claudeToolUse(): string {
  return line({
    isSidechain: false,
    sessionId: CLAUDE_ID,
    type: 'assistant',
    message: {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Searching.' },
        { type: 'tool_use', id: 'toolu_1', name: 'Grep', input: { pattern: 'currency' } },
      ],
    },
    timestamp: '2026-03-02T09:15:00.000Z',
  });
}

describe('visible messages of what a check consumed', () => {
  it('Claude: prompts, replies with tool calls; a partial line waits; tool results and sidechains never show', async () => {
    h = makeHarness({ live: true });
    const file = writeClaude(h.roots.claude);
    const key = h.catalog.adopt({ provider: 'claude', threadId: CLAUDE_ID }).key;
    const tail = claudeUser('and the other endpoint?');
    fs.appendFileSync(
      file,
      claudeUser('look at invoices') +
        claudeToolUse() +
        claudeUser([{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'x' }]) +
        claudeUser('sub-agent prompt', { isSidechain: true }) +
        tail.slice(0, 20),
    );
    await h.catalog.tick();
    expect(brief(h.live.get(key))).toEqual([
      { role: 'user', text: 'look at invoices' },
      { role: 'assistant', text: 'Searching.', calls: ['Grep'] },
    ]);
    await h.catalog.tick();
    expect(h.live.get(key)).toHaveLength(2);
    fs.appendFileSync(file, tail.slice(20) + claudeAssistant('Done.'));
    await h.catalog.tick();
    expect(brief(h.live.get(key))).toEqual([
      { role: 'user', text: 'look at invoices' },
      { role: 'assistant', text: 'Searching.', calls: ['Grep'] },
      { role: 'user', text: 'and the other endpoint?' },
      { role: 'assistant', text: 'Done.' },
    ]);
  });

  it('a text Sightline sent itself shows marked as its own; a failed record hands nothing over and retries', async () => {
    h = makeHarness({ live: true });
    const file = writeClaude(h.roots.claude);
    const key = h.catalog.adopt({ provider: 'claude', threadId: CLAUDE_ID }).key;
    h.catalog.rememberOwnText(key, 'run the tests');
    fs.appendFileSync(file, claudeUser('run the tests') + claudeUser('and lint'));
    h.failRecords(1);
    await h.catalog.tick();
    expect(h.live.get(key)).toBeUndefined();
    await h.catalog.tick();
    expect(brief(h.live.get(key))).toEqual([
      { role: 'user', text: 'run the tests', own: true },
      { role: 'user', text: 'and lint' },
    ]);
  });

  it('an oversized row shows once, its text cut', async () => {
    h = makeHarness({ live: true });
    const file = writeClaude(h.roots.claude);
    const key = h.catalog.adopt({ provider: 'claude', threadId: CLAUDE_ID }).key;
    fs.appendFileSync(file, claudeUser('z'.repeat(WINDOW_BYTES * 2)) + claudeAssistant('ok'));
    for (let i = 0; i < 5; i++) await h.catalog.tick();
    const got = h.live.get(key)!;
    expect(got.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(got[0]!.text.length).toBeGreaterThan(1000);
    expect(got[0]!.text.length).toBeLessThan(WINDOW_BYTES);
  });

  it('Pi: prompts, `!` commands and replies with tool calls', async () => {
    h = makeHarness({ live: true });
    const file = writePi(h.roots.pi);
    const key = h.catalog.adopt({ provider: 'pi', threadId: PI_ID }).key;
    fs.appendFileSync(
      file,
      piMessage({ role: 'user', content: [{ type: 'text', text: 'fix it' }] }, 'e1') +
        piMessage({ role: 'bashExecution', command: 'npm test', output: 'ok' }, 'e2') +
        piMessage(
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: 'hmm' },
              { type: 'toolCall', id: 't1', name: 'read', arguments: { path: 'a.ts' } },
            ],
          },
          'e3',
        ) +
        piMessage({ role: 'toolResult', toolCallId: 't1', content: [{ type: 'text', text: 'x' }] }, 'e4'),
    );
    await h.catalog.tick();
    expect(brief(h.live.get(key))).toEqual([
      { role: 'user', text: 'fix it' },
      { role: 'user', text: '!npm test' },
      { role: 'assistant', text: '', calls: ['read'] },
    ]);
  });

  it('Codex 0.171.0: the prompt once, not its context or its response_item mirror', async () => {
    h = makeHarness({ live: true });
    const real = path.resolve(__dirname, '../fixtures/tools/codex/sessions');
    const rel = (fs.readdirSync(real, { recursive: true }) as string[]).filter((f) =>
      f.endsWith('.jsonl'),
    )[0]!;
    const data = fs.readFileSync(path.join(real, rel));
    const id = (JSON.parse(data.toString('utf8', 0, data.indexOf(10))) as { payload: { id: string } }).payload
      .id;
    const file = path.join(h.roots.codex, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const first = data.indexOf(10) + 1;
    fs.writeFileSync(file, data.subarray(0, first));
    const key = h.catalog.adopt({ provider: 'codex', threadId: id }).key;
    fs.appendFileSync(file, data.subarray(first));
    await h.catalog.tick();
    expect(brief(h.live.get(key))).toEqual([
      { role: 'user', text: 'Summarise the README in this folder' },
      { role: 'user', text: 'Now list the TODO comments' },
    ]);
    fs.appendFileSync(
      file,
      line({
        type: 'response_item',
        payload: { type: 'function_call', name: 'exec_command', arguments: '{"cmd":"ls"}', call_id: 'c1' },
      }) +
        line({
          type: 'event_msg',
          payload: {
            type: 'item_completed',
            turn_id: 't',
            item: { type: 'AgentMessage', id: 'a', content: [{ type: 'Text', text: 'Two files.' }] },
          },
        }),
    );
    await h.catalog.tick();
    expect(brief(h.live.get(key)).slice(2)).toEqual([
      { role: 'assistant', text: '', calls: ['exec_command'] },
      { role: 'assistant', text: 'Two files.' },
    ]);
    expect(h.live.get(key)![2]!.toolCalls![0]!.arguments).toEqual({ cmd: 'ls' });
  });
});
