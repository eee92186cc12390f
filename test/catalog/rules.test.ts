// Every classification rule per JSONL provider, through adoption and one monitor check.
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { humanTurns, line, makeHarness, type Harness } from './helpers';
import {
  CLAUDE_ID,
  CODEX_ID,
  PI_ID,
  claudeAssistant,
  claudeUser,
  codexResponseUser,
  codexUserMessage,
  piMessage,
  writeClaude,
  writeCodex,
  writePi,
} from './fixtures';

let h: Harness;
afterEach(() => h.cleanup());

async function turnsAfter(provider: 'claude' | 'codex' | 'pi', append: string): Promise<number> {
  h = makeHarness();
  const file =
    provider === 'claude'
      ? writeClaude(h.roots.claude)
      : provider === 'codex'
        ? writeCodex(h.roots.codex)
        : writePi(h.roots.pi);
  const threadId = provider === 'claude' ? CLAUDE_ID : provider === 'codex' ? CODEX_ID : PI_ID;
  h.catalog.adopt({ provider, threadId });
  fs.appendFileSync(file, append);
  await h.catalog.tick();
  const { events, turns } = humanTurns(h.events);
  expect(events).toBeLessThanOrEqual(1);
  return turns;
}

describe('Claude Code rows', () => {
  const counted: [string, string][] = [
    ['a typed prompt (string content)', claudeUser('Please also handle EUR')],
    [
      'a typed prompt (text blocks)',
      claudeUser([
        { type: 'text', text: 'look at this' },
        { type: 'image', source: {} },
      ]),
    ],
    [
      'a slash command',
      claudeUser(
        '<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args>opus</command-args>',
      ),
    ],
    ['a ! shell input', claudeUser('<bash-input>git status</bash-input>')],
    ['an interrupt', claudeUser([{ type: 'text', text: '[Request interrupted by user]' }])],
    [
      'an interrupt during tool use',
      claudeUser([{ type: 'text', text: '[Request interrupted by user for tool use]' }]),
    ],
    [
      'pasted task-notification XML without origin',
      claudeUser('<task-notification>pasted</task-notification>'),
    ],
  ];
  for (const [name, row] of counted)
    it(`counts ${name}`, async () => expect(await turnsAfter('claude', row)).toBe(1));

  const ignored: [string, string][] = [
    ['an assistant row', claudeAssistant('Done.')],
    ['slash command output', claudeUser('<local-command-stdout>Set model to opus</local-command-stdout>')],
    ['slash command stderr', claudeUser('<local-command-stderr>oops</local-command-stderr>')],
    ['shell output', claudeUser('<bash-stdout>On branch main</bash-stdout><bash-stderr></bash-stderr>')],
    ['shell stderr', claudeUser('<bash-stderr>fatal</bash-stderr>')],
    ['a meta row', claudeUser('<system-reminder>x</system-reminder>', { isMeta: true })],
    ['a caveat row', claudeUser('<local-command-caveat>Caveat: …</local-command-caveat>', { isMeta: true })],
    ['a caveat row without isMeta', claudeUser('<local-command-caveat>Caveat: …</local-command-caveat>')],
    [
      'a compaction summary (flag)',
      claudeUser('This session is being continued…', {
        isCompactSummary: true,
        isVisibleInTranscriptOnly: true,
      }),
    ],
    [
      'a compaction summary (old builds, text only)',
      claudeUser(
        'This session is being continued from a previous conversation that ran out of context. Summary: …',
      ),
    ],
    ['a tool result', claudeUser([{ tool_use_id: 't1', type: 'tool_result', content: 'src/a.ts:1' }])],
    ['a sidechain row', claudeUser('Warmup', { isSidechain: true, agentId: 'a1' })],
    [
      'a task notification',
      claudeUser('<task-notification>done</task-notification>', { origin: { kind: 'task-notification' } }),
    ],
    ['a scheduled wake-up', claudeUser('continue', { promptSource: 'system', turnOrigin: 'scheduled' })],
    ['an image-only row', claudeUser([{ type: 'image', source: {} }])],
    ['a title row', line({ type: 'ai-title', aiTitle: 'Fix', sessionId: CLAUDE_ID })],
    ['a summary row', line({ type: 'summary', summary: 'Fix', leafUuid: 'x' })],
    [
      'a system row',
      line({ type: 'system', subtype: 'compact_boundary', content: 'Conversation compacted' }),
    ],
    ['a malformed complete line', '{"type":"user", nope\n'],
  ];
  for (const [name, row] of ignored)
    it(`ignores ${name}`, async () => expect(await turnsAfter('claude', row)).toBe(0));

  const queue = (operation: string, content: string) =>
    line({
      type: 'queue-operation',
      operation,
      content,
      sessionId: CLAUDE_ID,
      timestamp: '2026-03-02T09:20:00.000Z',
    });
  it('counts steering input (queue-operation remove)', async () =>
    expect(await turnsAfter('claude', queue('remove', 'also check EUR'))).toBe(1));
  it('counts steering that also shows up as a prompt row once', async () =>
    expect(
      await turnsAfter('claude', queue('remove', 'also  check EUR') + claudeUser('also check EUR')),
    ).toBe(1));
  it('ignores queue enqueue/dequeue (the text becomes a prompt row later)', async () =>
    expect(
      await turnsAfter('claude', queue('enqueue', 'later') + queue('dequeue', 'later') + queue('remove', '')),
    ).toBe(0));

  it('counts several rows of one check as one event with turns', async () => {
    expect(
      await turnsAfter(
        'claude',
        claudeUser('one') +
          claudeAssistant('ok') +
          claudeUser('<bash-input>ls</bash-input>') +
          claudeUser('<local-command-stdout>x</local-command-stdout>'),
      ),
    ).toBe(2);
    expect(h.events.filter((e) => e.kind === 'human_direct_message')[0]).toMatchObject({
      actorType: 'human',
      summary: 'human message via claude',
      payload: { turns: 2 },
    });
  });
});

describe('Codex rows', () => {
  it('counts event_msg user_message rows', async () =>
    expect(await turnsAfter('codex', codexUserMessage('hi') + codexUserMessage('hi'))).toBe(2));
  it('counts a legacy plain user_message', async () =>
    expect(await turnsAfter('codex', codexUserMessage('x', { kind: 'plain' }))).toBe(1));
  it('ignores legacy context kinds', async () =>
    expect(
      await turnsAfter(
        'codex',
        codexUserMessage('<environment_context>', { kind: 'environment_context' }) +
          codexUserMessage('# AGENTS.md', { kind: 'user_instructions' }),
      ),
    ).toBe(0));
  it('ignores response_item user messages (injected context and mirrors)', async () =>
    expect(
      await turnsAfter(
        'codex',
        codexResponseUser('# AGENTS.md instructions for /x\n<INSTRUCTIONS>') +
          codexResponseUser('<environment_context></environment_context>') +
          codexResponseUser('hi'),
      ),
    ).toBe(0));
  it('ignores agent messages, turn context and compaction', async () =>
    expect(
      await turnsAfter(
        'codex',
        line({ type: 'event_msg', payload: { type: 'agent_message', message: 'done' } }) +
          line({ type: 'turn_context', payload: { cwd: '/x' } }) +
          line({ type: 'compacted', payload: { message: 'summary', replacement_history: [] } }) +
          line({ type: 'event_msg', payload: { type: 'context_compacted' } }),
      ),
    ).toBe(0));
  it('records the channel codex in the summary, and no payload for one turn', async () => {
    expect(await turnsAfter('codex', codexUserMessage('go'))).toBe(1);
    const ev = h.events.find((e) => e.kind === 'human_direct_message')!;
    expect(ev.summary).toBe('human message via codex');
    expect(ev.payload).toBeUndefined();
  });
});

describe('Pi rows', () => {
  it('counts user messages, also partial slash commands', async () =>
    expect(
      await turnsAfter(
        'pi',
        piMessage({ role: 'user', content: '/the' }) +
          piMessage({ role: 'user', content: [{ type: 'text', text: 'go on' }] }),
      ),
    ).toBe(2));
  it('counts bashExecution (a ! command)', async () =>
    expect(
      await turnsAfter(
        'pi',
        piMessage({ role: 'bashExecution', command: 'pnpm test', output: '1 failed', exitCode: 1 }),
      ),
    ).toBe(1));
  it("ignores the tool's own rows", async () =>
    expect(
      await turnsAfter(
        'pi',
        piMessage({ role: 'assistant', content: [] }) +
          piMessage({ role: 'toolResult', toolCallId: 't', content: [{ type: 'text', text: 'x' }] }) +
          piMessage({ role: 'custom', content: 'x' }) +
          piMessage({ role: 'compactionSummary', summary: 'x' }) +
          piMessage({ role: 'branchSummary', summary: 'x' }) +
          line({
            type: 'custom_message',
            id: 'f',
            parentId: null,
            customType: 'git',
            content: 'x',
            display: false,
          }) +
          line({
            type: 'compaction',
            id: 'g',
            parentId: null,
            summary: 's',
            firstKeptEntryId: 'a',
            tokensBefore: 1,
          }) +
          line({ type: 'session_info', id: 'h', parentId: null, name: 'n' }) +
          line({ type: 'model_change', id: 'i', parentId: null, provider: 'x', modelId: 'y' }),
      ),
    ).toBe(0));
  it('records channel pi with turns', async () => {
    expect(
      await turnsAfter(
        'pi',
        piMessage({ role: 'user', content: 'a' }) +
          piMessage({ role: 'user', content: 'b' }) +
          piMessage({ role: 'user', content: 'c' }),
      ),
    ).toBe(3);
    expect(h.events.find((e) => e.kind === 'human_direct_message')).toMatchObject({
      summary: 'human message via pi',
      payload: { turns: 3 },
    });
  });
});
