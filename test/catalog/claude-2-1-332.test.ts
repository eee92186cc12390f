// Format drift: Claude Code 2.1.332's rows (attachment rows, last-prompt, system retry rows, user
// rows marked with rowSource / turnOrigin) through adoption and one monitor check. Only typed text
// counts as a human turn.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { claudeRules } from '../../electron/gateway/catalog/claude/rules';
import { humanTurns, makeHarness, type Harness } from './helpers';
import { CLAUDE_ID, writeClaude } from './fixtures';

const ROWS = fs.readFileSync(path.join(import.meta.dirname, '../fixtures/claude-2.1.332/rows.jsonl'), 'utf8');
const rows = ROWS.trimEnd()
  .split('\n')
  .map((l) => JSON.parse(l) as Record<string, unknown>);

let h: Harness | undefined;
afterEach(() => h?.cleanup());

describe('Claude Code 2.1.332 rows', () => {
  it('counts exactly the two typed prompts of 28 rows as human turns', async () => {
    expect(rows).toHaveLength(28);
    h = makeHarness();
    const file = writeClaude(h.roots.claude);
    h.catalog.adopt({ provider: 'claude', threadId: CLAUDE_ID });
    fs.appendFileSync(file, ROWS);
    await h.catalog.tick();
    expect(humanTurns(h.events)).toEqual({ events: 1, turns: 2 });
  });

  it('classifies each row: typed text is human, nothing else is', () => {
    const human = rows.filter((r) => claudeRules.human(r)).map((r) => claudeRules.text(r));
    expect(human).toEqual(['Say hello', 'Also handle EUR, please.']);
    const kinds = (pred: (r: Record<string, unknown>) => boolean) =>
      rows.filter(pred).some((r) => claudeRules.human(r));
    expect(kinds((r) => r.type === 'attachment')).toBe(false);
    expect(kinds((r) => r.type === 'last-prompt')).toBe(false);
    expect(kinds((r) => r.type === 'system' && r.subtype === 'api_error')).toBe(false);
    for (const source of ['hook', 'harness', 'recorded'])
      expect(kinds((r) => r.rowSource === source)).toBe(false);
    for (const origin of ['task_notification', 'scheduled', 'auto_continuation', 'peer'])
      expect(kinds((r) => r.turnOrigin === origin)).toBe(false);
    expect(kinds((r) => r.textNotTyped === true)).toBe(false);
  });

  it('shows the typed prompts and the answer in the adopted transcript, no harness text', async () => {
    h = makeHarness({ live: true });
    const file = writeClaude(h.roots.claude);
    h.catalog.adopt({ provider: 'claude', threadId: CLAUDE_ID });
    fs.appendFileSync(file, ROWS);
    await h.catalog.tick();
    const [messages] = [...h.live.values()];
    const texts = messages!.map((m) => `${m.role}: ${m.text}`);
    expect(texts).toEqual([
      'user: Say hello',
      'assistant: Hello from the stand-in.',
      'user: Also handle EUR, please.',
    ]);
  });
});
