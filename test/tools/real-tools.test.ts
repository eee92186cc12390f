// Real tools in the loop (issue 20): each of the four agent CLIs, installed from the npm registry
// at its pinned version (test/tools/install.ts; `SIGHTLINE_TOOLS=latest` for the newest), runs
// offline in a temporary home and writes its own transcript. The gateway lists it, adopts it,
// hears one human_direct_message (and queues one notice) for a second prompt the tool itself
// records through its resume, nothing more on a retried check, and exactly one upstream_missing
// after the tool's own delete (OpenCode) or the file's removal. A tool that cannot be installed or
// run fails its test. `SIGHTLINE_TOOLS_FIXTURES=1` refreshes test/fixtures/tools from the run.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultCatalogRoots, PROVIDER_MODULES } from '../../electron/gateway/catalog';
import { betterSqliteOpener } from '../../electron/gateway/catalog/sqlite';
import { openSqlite } from '../../electron/gateway/db/sqlite';
import { noticeContextKey } from '../../shared/session-keys';
import { openTestGateway, tempDir } from '../helpers/gateway';
import { DRIVERS, fingerprint, runTool, toolEnv } from './drivers';
import { ensureTool, latestVersion, TOOLS, type ToolSpec } from './install';
import { jsonlFiles, jsonlShape, opencodeShape, shapeDiff, type Shape } from './shape';

const LATEST = process.env.SIGHTLINE_TOOLS === 'latest';
const WRITE_FIXTURES = process.env.SIGHTLINE_TOOLS_FIXTURES === '1';
const FIXTURES = path.resolve(__dirname, '../fixtures/tools');
const FIRST = 'Summarise the README in this folder';
const SECOND = 'Now list the TODO comments';
const WATCHER = 'agent:main:main';
const report: string[] = [];

afterAll(() => {
  console.log(`tools: ${LATEST ? 'newest versions' : 'pinned versions'}\n${report.join('\n')}`);
});

/** The tool's transcript store in `home`: its files (JSONL tools) or its database (OpenCode). */
function store(spec: ToolSpec, home: string): { root: string; files(): string[] } {
  const root = defaultCatalogRoots({ HOME: home })[spec.id];
  if (spec.id !== 'opencode') return { root, files: () => jsonlFiles(root) };
  const db = path.join(root, 'opencode.db');
  return { root, files: () => [db, `${db}-wal`].filter((f) => fs.existsSync(f)) };
}

/** Is `text` in the tool's transcript (raw: any row, whatever our rules make of it)? */
function written(spec: ToolSpec, files: string[], text: string): boolean {
  if (spec.id !== 'opencode')
    return files.some((f) => fs.readFileSync(f, 'utf8').includes(JSON.stringify(text).slice(1, -1)));
  if (!files.length) return false;
  try {
    const db = betterSqliteOpener(files[0]!);
    try {
      return (
        (db.get("SELECT count(*) AS n FROM part WHERE data LIKE '%' || ? || '%'", text)?.n as number) > 0
      );
    } finally {
      db.close();
    }
  } catch {
    return false; // still being created
  }
}

/** Runs the tool until `text` is on disk and the transcript has been quiet for a moment. */
async function prompt(spec: ToolSpec, bin: string, home: string, cwd: string, args: string[], text: string) {
  const run = runTool(bin, args, { cwd, env: toolEnv(spec.id, home) });
  const s = store(spec, home);
  const started = Date.now();
  let seenAt = 0;
  let last = '';
  let quietSince = Date.now();
  try {
    for (;;) {
      if (Date.now() - started > 120_000)
        throw new Error(`${spec.id} did not write "${text}" within 120 s. Its output:\n${run.output()}`);
      const exited = await Promise.race([
        run.exited.then(() => true),
        new Promise((r) => setTimeout(() => r(false), 150)),
      ]);
      const files = s.files();
      const fp = fingerprint(files);
      if (fp !== last) {
        last = fp;
        quietSince = Date.now();
      }
      if (!seenAt && written(spec, files, text)) seenAt = Date.now();
      // Stop once the prompt is on disk and the tool has stopped writing for a moment (a row cut
      // by the stop would be glued to the next run's first row).
      if (seenAt && (Date.now() - quietSince > 1500 || Date.now() - seenAt > 8000)) return;
      if (exited && !seenAt)
        throw new Error(`${spec.id} exited before writing "${text}". Its output:\n${run.output()}`);
      if (exited) return;
    }
  } finally {
    await run.stop();
  }
}

function fixtureShape(spec: ToolSpec, dir: string): Shape {
  return spec.id === 'opencode'
    ? opencodeShape(path.join(dir, 'opencode.db'))
    : jsonlShape(spec.id, jsonlFiles(dir), SECOND);
}

/** Copies what the tool wrote into test/fixtures/tools/<tool> (same layout as its home). */
function writeFixtures(spec: ToolSpec, root: string): void {
  const dir = path.join(FIXTURES, spec.id);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  if (spec.id === 'opencode') {
    const db = openSqlite(path.join(root, 'opencode.db'), { readonly: true, fileMustExist: true });
    try {
      db.prepare('VACUUM INTO ?').run(path.join(dir, 'opencode.db'));
    } finally {
      db.close();
    }
    return;
  }
  for (const f of jsonlFiles(root)) {
    const to = path.join(dir, path.relative(path.dirname(root), f));
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.copyFileSync(f, to);
  }
}

describe.each(TOOLS.map((t) => [t.id, t] as const))('%s, the real CLI', (_id, spec) => {
  it('writes its own transcript; adopt → its second prompt is one event and one notice, once → its delete is one upstream_missing', async () => {
    let version = spec.pinned;
    let bin: string;
    try {
      if (LATEST) version = latestVersion(spec);
      bin = await ensureTool(spec, version);
    } catch (err) {
      report.push(`  ${spec.id} ${version}: FAILED — ${String((err as Error).message).split('\n')[0]}`);
      throw err;
    }
    const base = tempDir(`sightline-${spec.id}-`);
    const home = path.join(base, 'home');
    const cwd = path.join(base, 'project');
    fs.mkdirSync(home, { recursive: true });
    fs.mkdirSync(cwd, { recursive: true });
    const s = store(spec, home);
    const t = openTestGateway({ catalogRoots: defaultCatalogRoots({ HOME: home }) });
    try {
      await prompt(spec, bin, home, cwd, DRIVERS[spec.id].first(FIRST), FIRST);
      const listed = t.gw.catalog.list().filter((e) => e.provider === spec.id);
      expect(listed, `${spec.id} sessions listed`).toHaveLength(1);
      const entry = listed[0]!;
      expect(entry.cwd).toBe(cwd);

      const info = t.gw.catalog.adopt({ provider: spec.id, threadId: entry.threadId });
      const key = info.key;
      const human = () =>
        t.gw.state.changesSince(key, 0).events.filter((e) => e.kind === 'human_direct_message');
      const missing = () =>
        t.gw.state.changesSince(key, 0).events.filter((e) => e.kind === 'upstream_missing');
      const notices = () => t.gw.notices.peek(WATCHER).filter((n) => n.contextKey === noticeContextKey(key));

      await prompt(spec, bin, home, cwd, DRIVERS[spec.id].next(entry.threadId, SECOND), SECOND);
      if (WRITE_FIXTURES) writeFixtures(spec, s.root);
      const shape =
        spec.id === 'opencode' ? opencodeShape(s.files()[0]!) : jsonlShape(spec.id, s.files(), SECOND);

      await t.gw.catalog.tick();
      expect(human(), `${spec.id}: one human_direct_message`).toHaveLength(1);
      expect(human()[0]).toMatchObject({ actorType: 'human', summary: `human message via ${spec.id}` });
      expect(human()[0]!.payload).toBeUndefined();
      expect(notices(), `${spec.id}: one notice`).toHaveLength(1);
      await t.gw.catalog.tick();
      expect(human()).toHaveLength(1);
      expect(notices()).toHaveLength(1);

      const remove = DRIVERS[spec.id].remove;
      if (remove) {
        const run = runTool(bin, remove(entry.threadId), { cwd, env: toolEnv(spec.id, home) });
        const code = await Promise.race([
          run.exited,
          new Promise((r) => setTimeout(() => r('timeout'), 60_000)),
        ]);
        await run.stop();
        expect(code, `${spec.id} ${remove(entry.threadId).join(' ')}: ${run.output()}`).toBe(0);
      } else {
        const file = s.files().find((f) => f.includes(entry.threadId));
        expect(file, `${spec.id} transcript file`).toBeDefined();
        fs.rmSync(file!);
      }
      await t.gw.catalog.tick();
      await t.gw.catalog.tick();
      expect(missing()).toHaveLength(0);
      await t.gw.catalog.tick();
      await t.gw.catalog.tick();
      expect(missing(), `${spec.id}: one upstream_missing`).toHaveLength(1);
      expect(missing()[0]).toMatchObject({ summary: `upstream missing via ${spec.id}` });

      const diff = shapeDiff(fixtureShape(spec, path.join(FIXTURES, spec.id)), shape);
      const what = diff.length
        ? `format changed since the fixtures:\n    ${diff.join('\n    ')}`
        : 'format unchanged';
      report.push(`  ${spec.id} ${version}${LATEST ? ` (pinned ${spec.pinned})` : ''}: monitor ok; ${what}`);
    } catch (err) {
      report.push(`  ${spec.id} ${version}: FAILED — ${String((err as Error).message).split('\n')[0]}`);
      throw err;
    } finally {
      t.cleanup();
      fs.rmSync(base, { recursive: true, force: true });
    }
  }, 600_000);
});

it('drives the catalog’s own four providers', () => {
  expect(TOOLS.map((t) => t.id)).toEqual(PROVIDER_MODULES.map((m) => m.id));
});
