// Every better-sqlite3 database goes through one helper that knows the native binding
// (issue 14.7): the state database and OpenCode's read-only database alike, and no product
// module loads better-sqlite3 itself.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';
import { betterSqliteOpener } from '../../electron/gateway/catalog/sqlite';
import { openDatabase } from '../../electron/gateway/db/open';
import { currentNativeBinding, openSqlite, useNativeBinding } from '../../electron/gateway/db/sqlite';
import { tempDir } from '../helpers/gateway';

const root = path.resolve(import.meta.dirname, '../..');
const HELPER = 'electron/gateway/db/sqlite.ts';
// The Node build better-sqlite3 loads by default: a real addon file to pass explicitly.
const nodeBuild = path.join(
  path.dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json')),
  'build/Release/better_sqlite3.node',
);
const bogus = path.join(tempDir('sightline-binding-'), 'not-an-addon.node');

afterEach(() => useNativeBinding(undefined));

function productFiles(): string[] {
  const out: string[] = [];
  for (const top of ['electron', 'shared', 'renderer', 'scripts']) {
    for (const rel of fs.readdirSync(path.join(root, top), { recursive: true }).map(String)) {
      if (/\.(ts|tsx|mts|cts|mjs|cjs|js)$/.test(rel)) out.push(`${top}/${rel}`);
    }
  }
  return out;
}

describe('one SQLite helper', () => {
  it('is the only product module that loads better-sqlite3 or constructs a Database', () => {
    const loads =
      /(^|\n)\s*import\s+(?!type\b)[^;]*from\s+['"]better-sqlite3['"]|require\(\s*['"]better-sqlite3['"]\s*\)|import\(\s*['"]better-sqlite3['"]\s*\)|new\s+Database\s*\(/;
    const offenders = productFiles().filter((f) => loads.test(fs.readFileSync(path.join(root, f), 'utf8')));
    expect(offenders).toEqual([HELPER]);
  });

  it('passes the configured binding to the state database and to OpenCode’s database', () => {
    const dir = tempDir('sightline-binding-db-');
    const oc = path.join(dir, 'opencode.db');
    openSqlite(oc).exec('CREATE TABLE session (id TEXT)');

    fs.writeFileSync(bogus, 'not a shared object');
    useNativeBinding(bogus);
    expect(currentNativeBinding()).toBe(bogus);
    // better-sqlite3 requires the file it was given: the error names it.
    expect(() => openDatabase(path.join(dir, 'state'))).toThrow(bogus);
    expect(() => betterSqliteOpener(oc)).toThrow(bogus);

    useNativeBinding(nodeBuild);
    const state = openDatabase(path.join(dir, 'state'));
    expect(state.pragma('user_version', { simple: true })).toBeGreaterThan(0);
    state.close();
    const ro = betterSqliteOpener(oc);
    expect(ro.get('SELECT count(*) AS n FROM session')).toEqual({ n: 0 });
    ro.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('never reads SIGHTLINE_SQLITE_BINDING itself: only the host decides', () => {
    const dir = tempDir('sightline-binding-env-');
    fs.writeFileSync(bogus, 'not a shared object');
    process.env.SIGHTLINE_SQLITE_BINDING = bogus;
    try {
      const db = openDatabase(dir);
      db.close();
    } finally {
      delete process.env.SIGHTLINE_SQLITE_BINDING;
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('packaging keeps what the binding needs', () => {
  const yml = fs.readFileSync(path.join(root, 'build/electron-builder.yml'), 'utf8');
  const list = (key: string) =>
    (new RegExp(`^${key}:\\n((?:\\s+- .*\\n)+)`, 'm').exec(yml)?.[1] ?? '')
      .split('\n')
      .map((l) => l.trim().replace(/^- /, '').replace(/^"|"$/g, ''))
      .filter(Boolean);

  it('ships out/native and unpacks it from the archive, without the staging folder', () => {
    expect(list('files')).toContain('out/**');
    expect(list('files')).toContain('!out/native/.stage/**');
    expect(list('files').filter((f) => f.startsWith('!out/native') && f !== '!out/native/.stage/**')).toEqual(
      [],
    );
    // out/mcp/ holds the stdio MCP shim, run by a plain node (electron/main/native-binding.ts);
    // out/worker/ the archive worker, a thread of main (electron/gateway/installers/archive.ts).
    expect(list('asarUnpack')).toEqual(['out/native/**', 'out/mcp/**', 'out/worker/**']);
  });

  it("keeps better-sqlite3's JavaScript (lib/) and drops only its Node-ABI build and sources", () => {
    const dropped = list('files').filter((f) => f.startsWith('!node_modules/better-sqlite3'));
    expect(dropped).toEqual(['!node_modules/better-sqlite3/{build,deps,src,docs,benchmark}/**']);
    expect(dropped.join()).not.toContain('lib');
  });
});
