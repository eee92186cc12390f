// Issue 14.5: upstream ids are data, never flags. Thread ids are checked against each tool's real
// shapes, reach a CLI only as `--flag=value` or after `--`, and "continue" runs only in the folder
// the person saw at adoption, if it still exists; the first continue of a session asks the person.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PROVIDER_MODULES } from '../../electron/gateway/catalog';
import {
  CLAUDE_ID,
  claudeUser,
  codexMeta,
  codexUserMessage,
  relocate,
  writeClaude,
} from '../catalog/fixtures';
import { openTestGateway, tempDir, type TestGateway } from '../helpers/gateway';
import { fakeCli, recordingPort } from './helpers';

const FLAG = '--dangerously-skip-permissions';
const CODEX_FLAG = '--dangerously-bypass-approvals-and-sandbox';
const CORPORA = path.resolve('test/fixtures/corpora/real');

let t: TestGateway | undefined;
const restorePath = process.env.PATH;
afterEach(() => {
  process.env.PATH = restorePath;
  t?.cleanup();
  t = undefined;
});

const module = (id: string) => PROVIDER_MODULES.find((m) => m.id === id)!;

function files(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? files(p) : e.name.endsWith('.jsonl') ? [e.name] : [];
  });
}

describe('thread id shapes', () => {
  it('accept the ids of the real transcripts in test/fixtures and nothing that could be a flag', () => {
    const claude = files(path.join(CORPORA, 'claude'))
      .filter((f) => !f.startsWith('agent-'))
      .map((f) => f.slice(0, -'.jsonl'.length));
    const codex = files(path.join(CORPORA, 'codex')).map((f) => f.slice(-'.jsonl'.length - 36, -6));
    const pi = files(path.join(CORPORA, 'pi')).map((f) => f.split('_')[1]!.slice(0, -6));
    expect(claude.length).toBeGreaterThan(4);
    expect(codex).toContain('019c8a4c-ed82-79a1-aa28-7738fc5ab61a');
    for (const id of claude) expect(module('claude').threadId.test(id), id).toBe(true);
    for (const id of codex) expect(module('codex').threadId.test(id), id).toBe(true);
    for (const id of pi) expect(module('pi').threadId.test(id), id).toBe(true);
    expect(module('opencode').threadId.test('ses_3f9a2c1d7ffe4Xq1Lm4Np8Rs2T')).toBe(true);

    const hostile = [
      FLAG,
      `-${CLAUDE_ID}`,
      `${CLAUDE_ID} --yolo`,
      `${CLAUDE_ID}\n`,
      '../x',
      'ses_a b',
      '',
      'ses_',
    ];
    for (const m of PROVIDER_MODULES)
      for (const id of hostile) expect(m.threadId.test(id), `${m.id} ${id}`).toBe(false);
  });
});

describe('a transcript named like a flag', () => {
  function setup() {
    const roots = { claude: tempDir(), codex: tempDir() };
    const project = path.join(roots.claude, '-home-ana');
    fs.mkdirSync(project);
    fs.writeFileSync(
      path.join(project, `${FLAG}.jsonl`),
      claudeUser('hello', { sessionId: FLAG, cwd: roots.claude }),
    );
    const rollouts = path.join(roots.codex, '2026', '03', '02');
    fs.mkdirSync(rollouts, { recursive: true });
    fs.writeFileSync(
      path.join(rollouts, `rollout-2026-03-02T09-20-11-${CODEX_FLAG}.jsonl`),
      codexMeta('cli', CODEX_FLAG) + codexUserMessage('hello'),
    );
    t = openTestGateway({ catalogRoots: roots });
    const claude = fakeCli('claude');
    const codex = fakeCli('codex');
    fs.copyFileSync(path.join(codex.bin, 'codex'), path.join(claude.bin, 'codex'));
    fs.chmodSync(path.join(claude.bin, 'codex'), 0o755);
    process.env.PATH = claude.bin;
    return { gw: t.gw, roots, cli: claude };
  }

  it('is never listed, never adopted, and never reaches a CLI as a flag', async () => {
    const { gw, roots, cli } = setup();
    expect(gw.catalog.list().map((e) => e.threadId)).toEqual([]);
    expect(() => gw.catalog.adopt({ provider: 'claude', threadId: FLAG })).toThrow(
      `Not a Claude Code session id: "${FLAG}"`,
    );
    expect(() => gw.catalog.adopt({ provider: 'codex', threadId: CODEX_FLAG })).toThrow(
      `Not a Codex session id: "${CODEX_FLAG}"`,
    );

    // A link that exists anyway (written before ids were checked, or by another gateway).
    const key = `agent:main:adopted:claude:${FLAG}`;
    gw.sessions.create({ key });
    gw.db
      .prepare(
        `INSERT INTO catalog_upstream_links (session_key, provider, thread_id, host_id, source_ref, cwd, source_hash,
           generation, created_at, updated_at) VALUES (?, 'claude', ?, 'h', '{"kind":"file","path":"x"}', ?, 'x', 1, 0, 0)`,
      )
      .run(key, FLAG, roots.claude);
    await expect(gw.human.send(key, 'hello')).rejects.toThrow(`Not a Claude Code session id: "${FLAG}"`);
    expect(cli.calls()).toEqual([]);
  });
});

describe('continue', () => {
  function adopt(port = recordingPort()) {
    const claudeRoot = tempDir();
    const folder = fs.realpathSync(tempDir());
    const transcript = relocate(writeClaude(claudeRoot), folder);
    t = openTestGateway({ catalogRoots: { claude: claudeRoot } });
    t.gw.consent.plug(port.ask);
    const cli = fakeCli('claude');
    process.env.PATH = cli.bin;
    const key = t.gw.catalog.adopt({ provider: 'claude', threadId: CLAUDE_ID }).key;
    return { gw: t.gw, key, cli, folder, transcript, port };
  }

  it('runs in the folder shown at adoption, never one the transcript names later', async () => {
    const { gw, key, cli, folder, transcript } = adopt();
    const elsewhere = fs.realpathSync(tempDir());
    fs.writeFileSync(transcript, fs.readFileSync(transcript, 'utf8').replaceAll(folder, elsewhere));
    await gw.human.send(key, 'run the tests');
    expect(cli.calls()).toEqual([{ args: [`--resume=${CLAUDE_ID}`, '-p', 'run the tests'], cwd: folder }]);
  });

  it('refuses when that folder is gone, instead of running somewhere else', async () => {
    const { gw, key, cli, folder } = adopt();
    fs.rmSync(folder, { recursive: true });
    await expect(gw.human.send(key, 'run the tests')).rejects.toThrow(
      `Cannot continue this session: its folder ${folder} does not exist`,
    );
    expect(cli.calls()).toEqual([]);
  });

  it('asks the person once per session, CLI and folder, showing the exact command line', async () => {
    const port = recordingPort(false);
    const { gw, key, cli, folder } = adopt(port);
    await expect(gw.human.send(key, 'run the tests')).rejects.toThrow('declined by the person');
    expect(cli.calls()).toEqual([]);
    expect(port.questions).toEqual([
      expect.objectContaining({
        kind: 'continue',
        sessionKey: key,
        title:
          'Continue the Claude Code session "The /invoices endpoint returns 500. Find out why." with its CLI',
        command: {
          program: path.join(cli.bin, 'claude'),
          args: [`--resume=${CLAUDE_ID}`, '-p', 'run the tests'],
          cwd: folder,
        },
      }),
    ]);
    port.otherwise = true;
    await gw.human.send(key, 'run the tests');
    await gw.human.send(key, 'and the lint');
    expect(cli.calls().map((c) => c.args.at(-1))).toEqual(['run the tests', 'and the lint']);
    expect(port.questions).toHaveLength(2);
  });
});
