// Reliability, part 3 (transcripts): the catalog's JSONL classification under arbitrary byte
// chunkings and read windows (long rows go through the streaming row scanner) gives the same turn
// and malformed counts as classifying the file in one piece: no byte skipped or counted twice.
// The other hostile-input properties are in hostile.test.ts.
//
// CI: 300 runs per provider. SIGHTLINE_LONG=1 multiplies the runs by 20.
import fc from 'fast-check';
import type fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { claudeRules } from '../../electron/gateway/catalog/claude/rules';
import { codexRules } from '../../electron/gateway/catalog/codex/rules';
import type { CatalogFs } from '../../electron/gateway/catalog/kit/fsio';
import { probeJsonl, type JsonlMarker } from '../../electron/gateway/catalog/kit/jsonl-probe';
import { piRules } from '../../electron/gateway/catalog/pi/rules';
import type { RowRules } from '../../electron/gateway/catalog/kit/rules';

const LONG = process.env.SIGHTLINE_LONG === '1';
const runs = (n: number) => (LONG ? n * 20 : n);
const tried = { chunkings: 0 };
afterAll(() => console.log(`reliability: hostile transcripts chunkings=${tried.chunkings} failures=0`));

describe('catalog transcript classification under arbitrary chunkings', () => {
  /** A file that grows in memory: the probe reads it through the catalog's fs seam. */
  function memFs(): CatalogFs & { data: Buffer } {
    const m = {
      data: Buffer.alloc(0),
      statSync: () => ({ size: m.data.length, dev: 1, ino: 7 }) as unknown as fs.Stats,
      openSync: () => 3,
      readSync: (_fd: number, buf: Buffer, off: number, len: number, pos: number) =>
        m.data.copy(buf, off, pos, Math.min(pos + len, m.data.length)),
      closeSync: () => {},
      readdirSync: () => [] as fs.Dirent[],
    };
    return m;
  }

  const text = fc.string({
    unit: fc.constantFrom(
      'a',
      'Z',
      ' ',
      '\n',
      '\t',
      'é',
      '😀',
      '"',
      '\\',
      '<',
      '\u2028',
      '\ud800',
      '\u0000',
      '/',
    ),
    maxLength: 50,
  });
  const ts = fc.constantFrom('2026-03-02T09:14:05.098Z', '2026-03-02T09:20:11.417Z', 'not a date');
  const claudeRow = fc.oneof(
    fc.record({
      type: fc.constant('user'),
      isSidechain: fc.boolean(),
      isMeta: fc.option(fc.boolean(), { nil: undefined }),
      message: fc.record({ role: fc.constant('user'), content: text }),
      timestamp: ts,
    }),
    fc.record({
      type: fc.constant('user'),
      message: fc.record({
        role: fc.constant('user'),
        content: fc.array(
          fc.oneof(
            fc.record({ type: fc.constant('text'), text }),
            fc.record({ type: fc.constant('tool_result'), content: text }),
          ),
          { maxLength: 3 },
        ),
      }),
      timestamp: ts,
    }),
    fc.record({
      type: fc.constant('user'),
      message: fc.record({
        role: fc.constant('user'),
        content: fc.constantFrom(
          '<bash-stdout>ok</bash-stdout>',
          '<local-command-caveat>x',
          '[Request interrupted by user]',
          '<command-name>/clear</command-name>',
        ),
      }),
    }),
    fc.record({
      type: fc.constant('assistant'),
      message: fc.record({ role: fc.constant('assistant'), content: text }),
    }),
    fc.record({ type: fc.constant('summary'), summary: text, extra: fc.jsonValue({ maxDepth: 2 }) }),
  );
  const codexRow = fc.oneof(
    fc.record({
      timestamp: ts,
      type: fc.constant('event_msg'),
      payload: fc.record({
        type: fc.constant('user_message'),
        message: text,
        kind: fc.constantFrom(undefined, 'plain', 'environment_context'),
      }),
    }),
    fc.record({
      timestamp: ts,
      type: fc.constant('event_msg'),
      payload: fc.record({ type: fc.constant('agent_message'), message: text }),
    }),
    fc.record({
      timestamp: ts,
      type: fc.constant('response_item'),
      payload: fc.record({ type: fc.constant('message'), role: fc.constant('user'), content: text }),
    }),
  );
  const piRow = fc.oneof(
    fc.record({
      type: fc.constant('message'),
      timestamp: ts,
      message: fc.record({
        role: fc.constantFrom('user', 'assistant', 'bashExecution', 'toolResult'),
        content: text,
        command: text,
      }),
    }),
    fc.record({ type: fc.constantFrom('session', 'model_change', 'thinking_level_change'), id: text }),
  );
  /** Raw lines: a JSON row (LF or CRLF), or hostile junk that must count as malformed or nothing. */
  const lines = (row: fc.Arbitrary<unknown>) =>
    fc.array(
      fc.oneof(
        {
          weight: 8,
          arbitrary: fc.tuple(row, fc.boolean()).map(([r, crlf]) => JSON.stringify(r) + (crlf ? '\r' : '')),
        },
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            '',
            '{',
            '42',
            '[1,2]',
            '"str"',
            'null',
            '{"type":"user"',
            '}{',
            '\u0000\u0001',
          ),
        },
      ),
      { maxLength: 12 },
    );

  function checkAll(
    file: ReturnType<typeof memFs>,
    rules: RowRules,
    marker: JsonlMarker,
    windowBytes: number,
  ) {
    let turns = 0;
    let malformed = 0;
    for (let i = 0; i < 10_000; i++) {
      const o = probeJsonl({
        file: 'f.jsonl',
        marker,
        rules,
        ownTexts: { has: () => false },
        fs: file,
        windowBytes,
      });
      if (o.kind !== 'activity') throw new Error(`unexpected outcome ${o.kind}`);
      turns += o.turns;
      malformed += o.malformed;
      // Settled when a check moves nothing (a UTF-8 sequence cut at the end of the file waits for
      // its last bytes; the probe then still says `changed`, see the report).
      if (!o.changed || JSON.stringify(o.next) === JSON.stringify({ ...marker, ino: o.next.ino })) {
        expect(o.turns).toBe(0);
        return { turns, malformed, marker: o.next };
      }
      marker = o.next;
    }
    throw new Error('the probe never settled');
  }

  const providers: [string, RowRules, fc.Arbitrary<unknown>][] = [
    ['claude', claudeRules, claudeRow],
    ['codex', codexRules, codexRow],
    ['pi', piRules, piRow],
  ];
  for (const [name, rules, row] of providers) {
    it(`${name}: the count over any chunking and window equals the count in one piece`, () => {
      fc.assert(
        fc.property(
          lines(row),
          fc.array(fc.nat(), { maxLength: 8 }),
          fc.integer({ min: 24, max: 600 }),
          (ls, cuts, windowBytes) => {
            tried.chunkings++;
            const bytes = Buffer.from(ls.map((l) => `${l}\n`).join(''), 'utf8');
            const whole = memFs();
            whole.data = bytes;
            const once = checkAll(whole, rules, { offset: 0, ino: null, pend: null }, 1024 * 1024);
            expect(once.marker.offset).toBe(bytes.length);
            // The same bytes appended in arbitrary pieces (cutting UTF-8 sequences and lines),
            // checked after every append with a window that may be smaller than one row.
            const grown = memFs();
            let marker: JsonlMarker = { offset: 0, ino: null, pend: null };
            let turns = 0;
            let malformed = 0;
            const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
            for (const end of [...points, bytes.length]) {
              grown.data = bytes.subarray(0, end);
              const r = checkAll(grown, rules, marker, windowBytes);
              turns += r.turns;
              malformed += r.malformed;
              marker = r.marker;
            }
            expect(marker).toEqual({ offset: bytes.length, ino: '1:7', pend: null });
            expect(turns).toBe(once.turns);
            expect(malformed).toBe(once.malformed);
          },
        ),
        { numRuns: runs(300) },
      );
    });
  }
});
