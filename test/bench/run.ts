// `npm run bench`: runs every test/bench/*.bench.ts module, each in its own child process (so
// peak RSS and GC state belong to that module alone), prints one table and rewrites the section
// between <!-- bench:start --> and <!-- bench:end --> in README.md (test/bench/results.md when
// there is no README). `npm run bench -- state` runs only the modules whose name contains "state";
// `npm run bench -- state --merge` puts only those modules' fresh rows into the README's block.
//
// A module exports `async function run()`, resolving to flat figures
// (`Record<string, string | number>`) or to a BenchResult: figures and tables (cost curves,
// side-by-side comparisons), which are written first.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

type Figures = Record<string, string | number>;
export interface BenchTable {
  title: string;
  columns: string[];
  rows: (string | number)[][];
  note?: string;
}
export interface BenchResult {
  figures?: Figures;
  tables?: BenchTable[];
}
type BenchModule = { run?: () => Promise<Figures | BenchResult> };

const isResult = (r: Figures | BenchResult): r is BenchResult =>
  Array.isArray((r as BenchResult).tables) || typeof (r as BenchResult).figures === 'object';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const START = '<!-- bench:start -->';
const END = '<!-- bench:end -->';
const CHILD_FLAG = '--bench-child';

async function runModule(file: string): Promise<BenchResult> {
  const mod = (await import(pathToFileURL(file).href)) as BenchModule;
  if (typeof mod.run !== 'function') throw new Error(`${path.basename(file)} exports no run()`);
  const r = await mod.run();
  return isResult(r) ? r : { figures: r };
}

function runInChild(file: string): BenchResult {
  const out = path.join(os.tmpdir(), `sightline-bench-${process.pid}-${path.basename(file)}.json`);
  const r = spawnSync(
    process.execPath,
    [...process.execArgv, fileURLToPath(import.meta.url), CHILD_FLAG, file, out],
    {
      stdio: ['ignore', 'inherit', 'inherit'],
      cwd: root,
    },
  );
  try {
    if (r.status !== 0) throw new Error(`${path.basename(file)} failed (exit ${r.status ?? r.signal})`);
    return JSON.parse(fs.readFileSync(out, 'utf8')) as BenchResult;
  } finally {
    fs.rmSync(out, { force: true });
  }
}

function format(v: string | number): string {
  if (typeof v === 'string') return v;
  if (Number.isInteger(v)) return v.toLocaleString('en-US');
  return v.toLocaleString('en-US', { maximumFractionDigits: Math.abs(v) < 10 ? 2 : 1 });
}

const cell = (v: string | number) => format(v).replace(/\|/g, '\\|');

function table(results: { name: string; result: BenchResult }[]): string {
  const rows = ['| benchmark | metric | result |', '| --- | --- | --- |'];
  for (const r of results) {
    for (const [metric, value] of Object.entries(r.result.figures ?? {})) {
      rows.push(`| ${r.name} | ${cell(metric)} | ${cell(value)} |`);
    }
  }
  return rows.length > 2 ? rows.join('\n') : '';
}

function curves(results: { name: string; result: BenchResult }[]): string {
  const out: string[] = [];
  for (const r of results)
    for (const t of r.result.tables ?? []) {
      out.push(
        `**${t.title}**`,
        '',
        `| ${t.columns.map(cell).join(' | ')} |`,
        `|${' --- |'.repeat(t.columns.length)}`,
      );
      for (const row of t.rows) out.push(`| ${row.map(cell).join(' | ')} |`);
      out.push('', ...(t.note ? [t.note, ''] : []));
    }
  // A blank line after the last table's note, so the figures table starts a table of its own.
  return out.length ? `${out.join('\n')}\n` : '';
}

function machine(): string {
  const cpus = os.cpus();
  return `${cpus.length} × ${cpus[0]?.model.trim() ?? 'unknown CPU'}, Node ${process.versions.node}, ${os.platform()} ${os.arch()}`;
}

/** Replaces the marked section, adding the markers to the "Benchmarks" section when missing. */
export function rewriteSection(doc: string, body: string): string {
  const block = `${START}\n${body}\n${END}`;
  const s = doc.indexOf(START);
  const e = doc.indexOf(END);
  if (s !== -1 && e > s) return doc.slice(0, s) + block + doc.slice(e + END.length);
  const heading = /^## Benchmarks[^\n]*\n/m.exec(doc);
  if (heading) {
    // Append at the end of the Benchmarks section (before the next level-2 heading).
    const from = heading.index + heading[0].length;
    const next = doc.slice(from).search(/^## /m);
    const at = next === -1 ? doc.length : from + next;
    const before = doc.slice(0, at).replace(/\s*$/, '\n\n');
    return `${before}${block}\n${next === -1 ? '' : `\n${doc.slice(at)}`}`;
  }
  return `${doc.replace(/\s*$/, '\n')}\n## Benchmarks\n\n${block}\n`;
}

const FIGURES_HEAD = '| benchmark | metric | result |';

/** The rendering of one table of `curves()`, without the blank line after it. */
const oneTable = (t: BenchTable) => curves([{ name: '', result: { tables: [t] } }]).replace(/\n+$/, '');

/**
 * `npm run bench -- <module> --merge`: this run's rows replace only its modules' rows in the
 * README's block (each figure row names its module; a table is found by its title), everything
 * else stays as the last full run wrote it. A module's new rows take the place of its old ones,
 * or go at the end of the figures table; a new table goes before it.
 */
export function mergeSection(doc: string, results: { name: string; result: BenchResult }[]): string {
  const s = doc.indexOf(START);
  const e = doc.indexOf(END);
  if (s === -1 || e < s) throw new Error('--merge: README.md has no bench block to merge into');
  let body = doc.slice(s + START.length, e);
  for (const t of results.flatMap((r) => r.result.tables ?? [])) {
    const at = body.indexOf(`**${t.title}**`);
    if (at !== -1) {
      // The table runs to the next table's title or the figures table.
      const rest = body.slice(at + 1);
      const next = [rest.search(/^\*\*/m), rest.indexOf(FIGURES_HEAD)].filter((i) => i !== -1);
      const end = next.length ? at + 1 + Math.min(...next) : body.length;
      body = `${body.slice(0, at)}${oneTable(t)}\n\n${body.slice(end)}`;
    } else {
      const head = body.indexOf(FIGURES_HEAD);
      const at2 = head === -1 ? body.length : head;
      body = `${body.slice(0, at2)}${oneTable(t)}\n\n${body.slice(at2)}`;
    }
  }
  const lines = body.split('\n');
  const head = lines.indexOf(FIGURES_HEAD);
  if (head === -1) throw new Error('--merge: the bench block has no figures table');
  for (const r of results) {
    const fresh = table([r]).split('\n').slice(2);
    const mine = (l: string) => l.startsWith(`| ${r.name} | `);
    const first = lines.findIndex((l, i) => i > head && mine(l));
    let end = head + 2;
    while (end < lines.length && lines[end]!.startsWith('| ')) end++;
    const kept = lines.filter((l, i) => !(i > head && i < end && mine(l)));
    // No rows of its own yet: at the end of the figures table (none of its rows was removed).
    const at = first === -1 ? end : first;
    kept.splice(at, 0, ...fresh);
    lines.splice(0, lines.length, ...kept);
  }
  return doc.slice(0, s + START.length) + lines.join('\n') + doc.slice(e);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === CHILD_FLAG) {
    const figures = await runModule(args[1]!);
    fs.writeFileSync(args[2]!, JSON.stringify(figures));
    return;
  }
  const filters = args.filter((a) => !a.startsWith('-'));
  const files = fs
    .readdirSync(here)
    .filter((f) => f.endsWith('.bench.ts'))
    .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
    .sort()
    .map((f) => path.join(here, f));
  if (files.length === 0) throw new Error('no test/bench/*.bench.ts module matched');

  const results: { name: string; result: BenchResult }[] = [];
  let failed = 0;
  for (const file of files) {
    const name = path.basename(file, '.bench.ts');
    console.log(`\n▶ ${name}`);
    const t = performance.now();
    try {
      results.push({ name, result: runInChild(file) });
      console.log(`  done in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    } catch (err) {
      failed++;
      results.push({
        name,
        result: { figures: { error: err instanceof Error ? err.message : String(err) } },
      });
      console.error(`  ${name}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  const stamp = `_${machine()}; ${new Date().toISOString().slice(0, 10)}._`;
  const body = `${stamp}\n\n${curves(results)}${table(results)}\n\n${stamp}`;
  console.log(`\n${body}\n`);
  const readme = path.join(root, 'README.md');
  const partial = filters.length > 0;
  if (args.includes('--merge')) {
    if (!fs.existsSync(readme)) throw new Error('--merge: no README.md');
    if (failed) throw new Error('--merge: a module failed; README.md left as it was');
    fs.writeFileSync(readme, mergeSection(fs.readFileSync(readme, 'utf8'), results));
    console.log(`README.md: the rows of ${results.map((r) => r.name).join(', ')} merged`);
  } else if (partial) {
    console.log('(filtered run: README.md not rewritten)');
  } else if (fs.existsSync(readme)) {
    fs.writeFileSync(readme, rewriteSection(fs.readFileSync(readme, 'utf8'), body));
    console.log('README.md benchmark section rewritten');
  } else {
    fs.writeFileSync(path.join(here, 'results.md'), `# Benchmarks\n\n${START}\n${body}\n${END}\n`);
    console.log('no README.md: wrote test/bench/results.md');
  }
  if (failed) process.exitCode = 1;
}

// Only as the entry point (a test may import mergeSection without running every bench).
if (path.resolve(process.argv[1] ?? '') === fileURLToPath(import.meta.url)) await main();
