// The line diff the transcript shows: exact hunks for a known edit, and for any two texts the
// diff rebuilds both sides (property test).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lineDiff, MAX_DIFF_LINES } from '../../shared/diff';

describe('lineDiff', () => {
  it('shows changed lines with three lines of context and folds the rest', () => {
    const before = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`);
    const after = [...before];
    after.splice(9, 1, 'line 10 changed');
    const d = lineDiff(`${before.join('\n')}\n`, `${after.join('\n')}\n`)!;
    expect([d.added, d.removed]).toEqual([1, 1]);
    expect(d.lines).toEqual([
      { kind: 'gap', skipped: 6 },
      { kind: 'same', text: 'line 7', oldNo: 7, newNo: 7 },
      { kind: 'same', text: 'line 8', oldNo: 8, newNo: 8 },
      { kind: 'same', text: 'line 9', oldNo: 9, newNo: 9 },
      { kind: 'del', text: 'line 10', oldNo: 10 },
      { kind: 'add', text: 'line 10 changed', newNo: 10 },
      { kind: 'same', text: 'line 11', oldNo: 11, newNo: 11 },
      { kind: 'same', text: 'line 12', oldNo: 12, newNo: 12 },
      { kind: 'same', text: 'line 13', oldNo: 13, newNo: 13 },
      { kind: 'gap', skipped: 7 },
    ]);
    expect(lineDiff('', 'a\nb\n')).toEqual({
      lines: [
        { kind: 'add', text: 'a', newNo: 1 },
        { kind: 'add', text: 'b', newNo: 2 },
      ],
      added: 2,
      removed: 0,
    });
    expect(lineDiff('same\n', 'same\n')).toEqual({ lines: [], added: 0, removed: 0 });
    expect(lineDiff('x\n'.repeat(MAX_DIFF_LINES + 1), '')).toBeUndefined();
  });

  it('rebuilds both sides of any edit, with a minimal number of changed lines', () => {
    const text = fc.array(fc.constantFrom('a', 'b', 'c', ''), { maxLength: 30 }).map((l) => l.join('\n'));
    fc.assert(
      fc.property(text, text, (a, b) => {
        const d = lineDiff(a, b, 1_000_000)!;
        const old = d.lines.flatMap((l) => (l.kind === 'same' || l.kind === 'del' ? [l.text] : []));
        const neu = d.lines.flatMap((l) => (l.kind === 'same' || l.kind === 'add' ? [l.text] : []));
        if (d.added + d.removed > 0) {
          expect(old.join('\n')).toBe(a.replace(/\n$/, ''));
          expect(neu.join('\n')).toBe(b.replace(/\n$/, ''));
        }
        // Never more edits than replacing everything.
        expect(d.added + d.removed).toBeLessThanOrEqual(a.split('\n').length + b.split('\n').length);
      }),
      { numRuns: 400 },
    );
  });
});
