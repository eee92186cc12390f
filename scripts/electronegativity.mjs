#!/usr/bin/env node
/* global process, console -- Node script; the shared eslint config declares no Node globals for .mjs */
// Electronegativity (Doyensec's static checker for Electron misconfigurations) over electron/.
// Runs the pinned release through npx (fetched from the npm registry on first use, then cached),
// prints every finding, and fails only on HIGH findings missing from the reviewed allowlist
// build/electronegativity-allowlist.json (each entry: issue, file, reason, pinnedBy).
//
//   node scripts/electronegativity.mjs        exit 0: no unreviewed HIGH finding
//                                             exit 1: unreviewed HIGH findings (listed)
//                                             exit 2: the tool did not run or wrote no report
//
// The Electron version given to the checks is the one pinned in package.json. The tool also
// tries to fetch Electron's release list from the network; without it, it says "No
// connectivity?" and checks with the version given.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const TOOL = '@doyensec/electronegativity@1.10.3';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const allowlistPath = path.join(root, 'build/electronegativity-allowlist.json');

/** RFC 4180-ish CSV: quoted fields may hold commas, doubled quotes and newlines. */
export function parseCsv(text) {
  const rows = [];
  let row = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      if (row.some((f) => f.trim() !== '')) rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  row.push(field);
  if (row.some((f) => f.trim() !== '')) rows.push(row);
  const [header = [], ...body] = rows;
  const names = header.map((h) => h.trim().toLowerCase());
  return body.map((r) => Object.fromEntries(names.map((n, i) => [n, (r[i] ?? '').trim()])));
}

function loadAllowlist() {
  const doc = JSON.parse(fs.readFileSync(allowlistPath, 'utf8'));
  const allow = Array.isArray(doc.allow) ? doc.allow : [];
  for (const [i, e] of allow.entries()) {
    for (const k of ['issue', 'file', 'reason']) {
      if (typeof e[k] !== 'string' || e[k].trim() === '') {
        throw new Error(`${path.relative(root, allowlistPath)}: entry ${i} needs a non-empty "${k}"`);
      }
    }
  }
  return allow;
}

function main() {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const electron = String(pkg.devDependencies?.electron ?? '').replace(/^[^\d]*/, '');
  if (!electron) throw new Error('package.json pins no electron version');
  const allow = loadAllowlist();

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-electronegativity-'));
  const csv = path.join(dir, 'report.csv');
  const started = Date.now();
  try {
    const r = spawnSync(
      'npx',
      ['-y', TOOL, '-i', 'electron/', '-o', csv, '-e', electron, '-r', '-v', 'false'],
      { cwd: root, encoding: 'utf8', timeout: 300_000, shell: process.platform === 'win32' },
    );
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    if (r.error || r.status !== 0 || !fs.existsSync(csv)) {
      process.stderr.write(r.stdout ?? '');
      process.stderr.write(r.stderr ?? '');
      console.error(`electronegativity: ${TOOL} did not run (${r.error?.message ?? `exit ${r.status}`})`);
      return 2;
    }
    const findings = parseCsv(fs.readFileSync(csv, 'utf8'));
    const used = new Set();
    const unreviewed = [];
    for (const f of findings) {
      const where = `${f.filename}:${f.location}`;
      const entry =
        f.severity === 'HIGH' ? allow.find((e) => e.issue === f.issue && e.file === f.filename) : undefined;
      if (entry) used.add(entry);
      const mark = f.severity !== 'HIGH' ? ' ' : entry ? '✓' : '✗';
      console.log(`${mark} ${f.severity.padEnd(13)} ${f.issue} ${where}${entry ? ' (allowlisted)' : ''}`);
      if (f.severity === 'HIGH' && !entry) unreviewed.push(f);
    }
    for (const e of allow) {
      if (!used.has(e)) console.log(`note: allowlist entry ${e.issue} ${e.file} matched no finding (stale?)`);
    }
    const bySeverity = {};
    for (const f of findings) bySeverity[f.severity] = (bySeverity[f.severity] ?? 0) + 1;
    const counts = Object.entries(bySeverity)
      .map(([s, n]) => `${s.toLowerCase()}=${n}`)
      .join(' ');
    console.log(
      `electronegativity: ${findings.length} findings (${counts || 'none'}), ` +
        `${unreviewed.length} unreviewed HIGH, electron ${electron}, ${seconds} s`,
    );
    if (unreviewed.length) {
      for (const f of unreviewed) {
        console.error(`HIGH ${f.issue} at ${f.filename}:${f.location}: ${f.description} (${f.url})`);
      }
      console.error(
        `Fix them, or review and add them to ${path.relative(root, allowlistPath)} with a reason.`,
      );
      return 1;
    }
    return 0;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

process.exitCode = main();
