// `npm run bench`: runs every test/bench/*.bench.ts module, each in its own child process (so
// peak RSS and GC state belong to that module alone), prints one table and rewrites the section
// between <!-- bench:start --> and <!-- bench:end --> in README.md (test/bench/results.md when
// there is no README). `npm run bench -- state` runs only the modules whose name contains "state".
//
// A module exports `async function run(): Promise<Record<string, string | number>>`.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

type Figures = Record<string, string | number>;
type BenchModule = { run?: () => Promise<Figures> };

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const START = '<!-- bench:start -->';
const END = '<!-- bench:end -->';
const CHILD_FLAG = '--bench-child';

async function runModule(file: string): Promise<Figures> {
  const mod = (await import(pathToFileURL(file).href)) as BenchModule;
  if (typeof mod.run !== 'function') throw new Error(`${path.basename(file)} exports no run()`);
  return mod.run();
}

function runInChild(file: string): Figures {
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
    return JSON.parse(fs.readFileSync(out, 'utf8')) as Figures;
  } finally {
    fs.rmSync(out, { force: true });
  }
}

function format(v: string | number): string {
  if (typeof v === 'string') return v;
  if (Number.isInteger(v)) return v.toLocaleString('en-US');
  return v.toLocaleString('en-US', { maximumFractionDigits: Math.abs(v) < 10 ? 2 : 1 });
}

function table(results: { name: string; figures: Figures }[]): string {
  const rows = ['| benchmark | metric | result |', '| --- | --- | --- |'];
  for (const r of results) {
    for (const [metric, value] of Object.entries(r.figures)) {
      rows.push(`| ${r.name} | ${metric.replace(/\|/g, '\\|')} | ${format(value).replace(/\|/g, '\\|')} |`);
    }
  }
  return rows.join('\n');
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

  const results: { name: string; figures: Figures }[] = [];
  let failed = 0;
  for (const file of files) {
    const name = path.basename(file, '.bench.ts');
    console.log(`\n▶ ${name}`);
    const t = performance.now();
    try {
      const figures = runInChild(file);
      results.push({ name, figures });
      console.log(`  done in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    } catch (err) {
      failed++;
      results.push({ name, figures: { error: err instanceof Error ? err.message : String(err) } });
      console.error(`  ${name}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  const body = `${table(results)}\n\n_${machine()}; ${new Date().toISOString().slice(0, 10)}._`;
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
