// The streaming row scanner agrees with JSON.parse + the classifiers, however the row is split.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { claudeRules } from '../../electron/gateway/catalog/claude/rules';
import { utf8SafeEnd } from '../../electron/gateway/catalog/kit/fsio';
import { newScan, scanFeed, scanFinish } from '../../electron/gateway/catalog/kit/row-scanner';
import { printKey, textKey } from '../../electron/gateway/catalog/kit/text';

function scanInPieces(json: string, cuts: number[]) {
  const st = newScan();
  let a = 0;
  for (const c of [...cuts.filter((x) => x > 0 && x < json.length).sort((x, y) => x - y), json.length]) {
    // Persisted between checks: the state must survive a JSON round trip.
    const copy = JSON.parse(JSON.stringify(st));
    scanFeed(copy, claudeRules.scan, json.slice(a, c));
    Object.assign(st, copy);
    a = c;
  }
  return scanFinish(st, claudeRules.scan);
}

const text = fc.string({
  unit: fc.constantFrom('a', ' ', '\n', '\t', 'é', '😀', '"', '\\', '<', '\u2003', 'Z'),
  maxLength: 60,
});
const block = fc.oneof(
  fc.record({ type: fc.constant('text'), text }),
  fc.record({ type: fc.constant('tool_result'), tool_use_id: fc.string(), content: text }),
  fc.record({ type: fc.constant('image'), source: fc.record({ data: fc.string() }) }),
);
const row = fc.record({
  type: fc.constantFrom('user', 'assistant', 'system'),
  isSidechain: fc.boolean(),
  isMeta: fc.option(fc.boolean(), { nil: undefined }),
  extra: fc.jsonValue({ maxDepth: 3 }),
  message: fc.record({
    role: fc.constantFrom('user', 'assistant'),
    content: fc.oneof(text, fc.array(block, { maxLength: 5 })),
  }),
  timestamp: fc.constant('2026-03-02T09:14:05.098Z'),
});

describe('row scanner', () => {
  it('classifies and fingerprints like the parsed row, for any split', () => {
    fc.assert(
      fc.property(row, fc.array(fc.nat(2000), { maxLength: 6 }), (r, cuts) => {
        const json = JSON.stringify(r);
        const res = scanInPieces(json, cuts);
        const parsed = JSON.parse(json) as Record<string, unknown>;
        expect(res.row).toBeDefined();
        expect(claudeRules.human(res.row!)).toBe(claudeRules.human(parsed));
        const t = claudeRules.text(parsed);
        if (t !== undefined && claudeRules.human(parsed)) expect(printKey(res.print)).toBe(textKey(t));
      }),
      { numRuns: 400 },
    );
  });

  it('marks malformed rows (classified as not human, never skipped silently)', () => {
    for (const bad of ['{"type":"user",', '{"a":tru}', '[1,2', '{"a" 1}', '{}}'])
      expect(scanInPieces(bad, [3]).row).toBeUndefined();
  });

  it('keeps bounded state for huge strings and many blocks', () => {
    const blocks = Array.from({ length: 5000 }, (_, i) => ({
      type: i === 4321 ? 'tool_result' : 'text',
      text: 'x'.repeat(3000),
    }));
    const json = JSON.stringify({ type: 'user', message: { role: 'user', content: blocks } });
    const res = scanInPieces(json, [1000, 200_000]);
    expect(claudeRules.human(res.row!)).toBe(false);
    const st = newScan();
    scanFeed(st, claudeRules.scan, json);
    expect(JSON.stringify(st).length).toBeLessThan(40 * 1024);
  });

  it('never cuts a UTF-8 sequence at a window edge', () => {
    const b = Buffer.from('aé😀');
    expect(utf8SafeEnd(b, b.length)).toBe(b.length);
    expect(utf8SafeEnd(b, b.length - 1)).toBe(3);
    expect(utf8SafeEnd(b, 2)).toBe(1);
    expect(utf8SafeEnd(b, 3)).toBe(3);
  });
});
