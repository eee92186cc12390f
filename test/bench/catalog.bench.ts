// Benchmarks of the upstream monitor (issue 4): one check over 1,000 adopted, watched Claude
// sessions with nothing new (target <= 20 ms), and with 1 MiB of new rows per session (MB/s
// classified). The catalog runs on a file-backed WAL state database; the signal log is a small
// in-memory stand-in, so the figures are the catalog's own cost.
import fs from 'node:fs';
import path from 'node:path';
import { humanTurns, makeHarness } from '../catalog/helpers';
import { CLAUDE_ID, claudeAssistant, claudeUser } from '../catalog/fixtures';

const SESSIONS = 1000;
const MiB = 1024 * 1024;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

export async function run(): Promise<Record<string, string | number>> {
  const h = makeHarness();
  try {
    const files: string[] = [];
    const dir = path.join(h.roots.claude, '-bench');
    fs.mkdirSync(dir, { recursive: true });
    for (let i = 0; i < SESSIONS; i++) {
      const id = CLAUDE_ID.slice(0, -6) + String(i).padStart(6, '0');
      const file = path.join(dir, `${id}.jsonl`);
      fs.writeFileSync(file, claudeUser(`task ${i}`) + claudeAssistant('ok'));
      files.push(file);
      h.catalog.adopt({ provider: 'claude', threadId: id });
    }
    for (let r = 0; r < 5; r++) await h.catalog.tick(); // warm-up (JIT, page cache)
    const idle: number[] = [];
    for (let r = 0; r < 21; r++) {
      const t = performance.now();
      await h.catalog.tick();
      idle.push(performance.now() - t);
    }

    // The same with a write to the state database before each check (the links are re-read).
    // The own text goes to an adopted session: since migration 009 it must name an existing one.
    const ownKey = `agent:main:adopted:claude:${CLAUDE_ID.slice(0, -6)}000000`;
    const idleCold: number[] = [];
    for (let r = 0; r < 21; r++) {
      h.catalog.rememberOwnText(ownKey, `text ${r}`);
      const t = performance.now();
      await h.catalog.tick();
      idleCold.push(performance.now() - t);
    }

    // 1 MiB of new rows per session: mostly assistant/tool traffic, a human prompt every ~100 rows.
    let chunk = '';
    let humansPer = 0;
    for (let n = 0; chunk.length < MiB - 12_000; n++) {
      if (n % 100 === 50) {
        chunk += claudeUser(`human prompt ${n}`);
        humansPer++;
      } else
        chunk +=
          n % 2
            ? claudeAssistant('x'.repeat(900))
            : claudeUser([{ type: 'tool_result', tool_use_id: `t${n}`, content: 'y'.repeat(900) }]);
    }
    const bytes = Buffer.byteLength(chunk);
    for (const f of files) fs.appendFileSync(f, chunk);
    const t = performance.now();
    await h.catalog.tick();
    const busyMs = performance.now() - t;
    const counted = humanTurns(h.events).turns;
    if (counted !== humansPer * SESSIONS)
      throw new Error(`counted ${counted} human turns, expected ${humansPer * SESSIONS}`);
    const idleMs = median(idle);
    return {
      'check, 1,000 sessions, nothing new (median ms)': Number(idleMs.toFixed(2)),
      'target <= 20 ms': idleMs <= 20 ? 'met' : 'missed',
      'same, links re-read after a database write (median ms)': Number(median(idleCold).toFixed(2)),
      'check, 1,000 sessions × 1 MiB new (s)': Number((busyMs / 1000).toFixed(2)),
      'classified (MB/s)': Number(((bytes * SESSIONS) / MiB / (busyMs / 1000)).toFixed(1)),
    };
  } finally {
    h.cleanup();
  }
}
