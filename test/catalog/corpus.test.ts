// Real transcripts (test/fixtures/corpora/real, copied with their licenses): each session is copied into a temp catalog root up to
// its first user line, adopted, and the rest is appended in uneven chunks (many cut mid-line)
// with a monitor check after each; the recorded turns must equal expected.json exactly.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createCatalog } from '../../electron/gateway/catalog';
import type { SessionState } from '../../electron/gateway/types';
import { catalogNodes, humanTurns, makeHarness, rng, type Harness } from './helpers';
import { silentLogger } from '../helpers/logger';

const REAL = path.resolve(__dirname, '../fixtures/corpora/real');

interface ExpectedFile {
  path: string;
  tool: 'claude' | 'codex' | 'pi';
  role: string;
  expected: {
    firstUserLine?: number | null;
    humanActivityAfterFirstUserLine?: number;
    userMessagesAfterFirstUserLine?: number;
  };
}

// Read unconditionally: a missing corpus fails the file instead of skipping it.
const files: ExpectedFile[] = (
  JSON.parse(fs.readFileSync(path.join(REAL, 'expected.json'), 'utf8')) as { files: ExpectedFile[] }
).files;
const sessions = files.filter((f) => f.role === 'session' && !f.path.startsWith('pi-v1/'));

function target(h: Harness, f: ExpectedFile): string {
  const rel = f.path.split('/').slice(2).join('/'); // drop "<tool>/<projects|sessions>"
  return path.join(h.roots[f.tool], rel);
}

function threadIdOf(f: ExpectedFile, firstLine: string): string {
  if (f.tool === 'claude') return path.basename(f.path, '.jsonl');
  const row = JSON.parse(firstLine) as { id?: string; payload?: { id?: string } };
  return (f.tool === 'codex' ? row.payload?.id : row.id)!;
}

let h: Harness | undefined;

/** A catalog over other roots that only lists (adoption of a legacy file fails before any write). */
function listingCatalog(harness: Harness, roots: Harness['roots']) {
  const unused = () => {
    throw new Error('not used by listing');
  };
  return createCatalog({
    db: harness.db,
    nodes: catalogNodes(harness.db, () => 0),
    sessions: { create: unused, get: () => undefined, list: () => [], reset: unused, delete: unused },
    state: { record: unused, registerWatch: unused } as unknown as SessionState,
    now: () => 0,
    roots,
    logger: silentLogger,
    importTranscript: unused,
  });
}
afterEach(() => {
  h?.cleanup();
  h = undefined;
});

describe('real transcripts give exactly the expected counts', () => {
  it('has the corpus files', () => {
    expect(sessions.length).toBe(17);
  });

  for (const [i, f] of sessions.entries()) {
    it(`${f.path}`, async () => {
      h = makeHarness();
      const data = fs.readFileSync(path.join(REAL, f.path));
      const first = f.expected.firstUserLine!;
      let cut = 0;
      for (let n = 0; n < first; n++) cut = data.indexOf(10, cut) + 1;
      const file = target(h, f);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, data.subarray(0, cut));
      const threadId = threadIdOf(f, data.toString('utf8', 0, data.indexOf(10)));
      const info = h.catalog.adopt({ provider: f.tool, threadId });
      expect(info.key).toBe(`agent:main:adopted:${f.tool}:${threadId}`);

      const rand = rng(1000 + i);
      let pos = cut;
      while (pos < data.length) {
        // Uneven chunks from a few bytes to ~1.5 MiB, almost always ending mid-line.
        const r = rand();
        const size =
          r < 0.3
            ? 1 + Math.floor(rand() * 4000)
            : r < 0.9
              ? Math.floor(rand() * 300_000)
              : Math.floor(rand() * 1_500_000);
        const end = Math.min(data.length, pos + Math.max(1, size));
        fs.appendFileSync(file, data.subarray(pos, end));
        pos = end;
        await h.catalog.tick();
      }
      for (let n = 0; n < 20; n++) {
        const before = JSON.stringify(
          h.db.prepare('SELECT marker_offset, scan_state FROM catalog_upstream_links').all(),
        );
        await h.catalog.tick();
        if (
          JSON.stringify(
            h.db.prepare('SELECT marker_offset, scan_state FROM catalog_upstream_links').all(),
          ) === before
        )
          break;
      }
      const want = f.expected.humanActivityAfterFirstUserLine ?? f.expected.userMessagesAfterFirstUserLine;
      expect(humanTurns(h.events, info.key).turns).toBe(want);
      const link = h.db.prepare('SELECT marker_offset FROM catalog_upstream_links').get() as {
        marker_offset: number;
      };
      expect(link.marker_offset).toBe(data.length);
    });
  }

  it('lists the real homes: 7 Claude sessions (sub-agent files skipped), 8 Codex rollouts, 2 Pi v3 sessions', async () => {
    h = makeHarness();
    const cat = listingCatalog(h, {
      claude: path.join(REAL, 'claude/projects'),
      codex: path.join(REAL, 'codex/sessions'),
      pi: path.join(REAL, 'pi/sessions'),
      opencode: h.roots.opencode,
    });
    const list = cat.list();
    const count = (p: string) => list.filter((e) => e.provider === p).length;
    expect([count('claude'), count('codex'), count('pi'), count('opencode')]).toEqual([7, 8, 2, 0]);
    expect(list.some((e) => e.threadId.startsWith('agent-'))).toBe(false);
    const fe5 = list.find((e) => e.threadId === 'fe5e1c67-53e7-4862-81ae-d0e013e3270b')!;
    expect(fe5.cwd).toBe('/path/to/Demo');
    const pi = list.find((e) => e.threadId === 'ffae836b-9420-4060-ac13-7745215f90ff')!;
    expect(pi.cwd).toBe('/Users/badlogic/workspaces/pi-mono');
    expect(pi.createdAt).toBe(Date.parse('2025-12-09T00:53:29.825Z'));
    const cx = list.find((e) => e.threadId === '019e1695-0522-7c83-8b39-0dd379793f80')!;
    expect(cx.cwd).toBe('/Users/Sample_User/naya');
    expect(cx.sizeBytes).toBe(515526);
    expect(await cat.listAsync()).toEqual(list);
    // Legacy Pi (v1) files are not listed: Pi rewrites them when it opens them.
    const legacy = listingCatalog(h, { ...h.roots, pi: path.join(REAL, 'pi-v1/sessions') });
    expect(legacy.list()).toEqual([]);
    expect(() => legacy.adopt({ provider: 'pi', threadId: 'ffae836b-9420-4060-ac13-7745215f90ff' })).toThrow(
      /old transcript format/,
    );
  });
});
