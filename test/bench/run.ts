// `npm run bench`: runs every test/bench/*.bench.ts module, each in its own child process (so
// peak RSS and GC state belong to that module alone), prints one table and rewrites the section
// between <!-- bench:start --> and <!-- bench:end --> in README.md (test/bench/results.md when
// there is no README). `npm run bench -- state` runs only the modules whose name contains "state".
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
  if (partial) {
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

await main();
