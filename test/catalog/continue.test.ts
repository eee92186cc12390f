// Continue in Sightline: the upstream CLI is spawned without a shell, and its echo of our text in
// the upstream transcript is self-echo, not human activity.
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultCatalogRoots } from '../../electron/gateway/catalog';
import { fakeCli } from '../helpers/fake-cli';
import { humanTurns, makeHarness, tmpDir, type Harness } from './helpers';
import {
  CLAUDE_ID,
  CODEX_ID,
  claudeUser,
  codexUserMessage,
  relocate,
  writeClaude,
  writeCodex,
} from './fixtures';

let h: Harness;
const dirs: string[] = [];
afterEach(() => {
  h?.cleanup();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function binDir(): string {
  const bin = tmpDir('sightline-bin-');
  dirs.push(bin);
  return bin;
}

const claudeRow = `(t) => JSON.stringify({ type: 'user', isSidechain: false, message: { role: 'user', content: t }, timestamp: '2026-03-02T09:14:05.098Z' }) + '\\n'`;
const codexRow = `(t) => JSON.stringify({ type: 'event_msg', payload: { type: 'user_message', message: t } }) + '\\n'`;

describe('catalog.continue', () => {
  // Issue 14.5 changed the command lines on purpose: the id is the value of `--resume=` (Claude)
  // or comes after `--` (Codex), and the CLI runs in the folder recorded at adoption.
  it('runs `claude --resume=<id> -p <text>` and treats the upstream echo as self-echo', async () => {
    const bin = binDir();
    h = makeHarness({ env: { PATH: bin } });
    const real = relocate(writeClaude(h.roots.claude), bin);
    const cli = fakeCli('claude', { bin, transcript: { file: real, row: claudeRow } });
    const key = h.catalog.adopt({ provider: 'claude', threadId: CLAUDE_ID }).key;
    await h.catalog.continue(key, 'please   run the tests');
    expect(cli.calls().at(-1)?.args).toEqual([`--resume=${CLAUDE_ID}`, '-p', 'please   run the tests']);
    expect(h.imported.get(key)!.slice(-2)).toEqual([
      { role: 'user', text: 'please   run the tests' },
      { role: 'assistant', text: 'reply from claude' },
    ]);
    await h.catalog.tick();
    expect(humanTurns(h.events, key).events).toBe(0);
    fs.appendFileSync(real, claudeUser('typed in the terminal'));
    await h.catalog.tick();
    expect(humanTurns(h.events, key)).toEqual({ events: 1, turns: 1 });
  });

  it('runs `codex exec resume -- <id> <text>`: neither can be read as an option', async () => {
    const bin = binDir();
    h = makeHarness({ env: { PATH: bin } });
    const real = relocate(writeCodex(h.roots.codex), bin);
    const cli = fakeCli('codex', { bin, transcript: { file: real, row: codexRow } });
    const key = h.catalog.adopt({ provider: 'codex', threadId: CODEX_ID }).key;
    await h.catalog.continue(key, '--help me');
    expect(cli.calls().at(-1)?.args).toEqual(['exec', 'resume', '--', CODEX_ID, '--help me']);
    fs.appendFileSync(real, codexUserMessage('and from the terminal'));
    await h.catalog.tick();
    expect(humanTurns(h.events, key)).toEqual({ events: 1, turns: 1 });
    expect(h.db.prepare('SELECT text FROM catalog_own_texts WHERE session_key = ?').all(key)).toEqual([
      { text: '--help me' },
    ]);
  });

  it('a missing CLI gives a clear error naming the command', async () => {
    const bin = binDir();
    h = makeHarness({ env: { PATH: bin } });
    relocate(writeClaude(h.roots.claude), bin);
    const key = h.catalog.adopt({ provider: 'claude', threadId: CLAUDE_ID }).key;
    await expect(h.catalog.continue(key, 'hi')).rejects.toThrow(
      'the "claude" command is not installed (not found on PATH)',
    );
  });

  it('a failing CLI reports its exit code; unknown sessions and empty texts are refused', async () => {
    const bin = binDir();
    h = makeHarness({ env: { PATH: bin } });
    const real = relocate(writeClaude(h.roots.claude), bin);
    fakeCli('claude', { bin, transcript: { file: real, row: claudeRow }, exitCode: 3 });
    const key = h.catalog.adopt({ provider: 'claude', threadId: CLAUDE_ID }).key;
    await expect(h.catalog.continue(key, 'hi')).rejects.toThrow('"claude" exited with code 3: boom');
    await expect(h.catalog.continue('agent:main:main', 'hi')).rejects.toThrow(
      /^Unknown sessionKey: agent:main:main/,
    );
    await expect(h.catalog.continue(key, '   ')).rejects.toThrow('text is required');
  });
});

describe('defaultCatalogRoots', () => {
  it('uses the real homes', () => {
    expect(defaultCatalogRoots({ HOME: '/home/ana' })).toEqual({
      claude: '/home/ana/.claude/projects',
      codex: '/home/ana/.codex/sessions',
      opencode: '/home/ana/.local/share/opencode',
      pi: '/home/ana/.pi/agent/sessions',
    });
  });

  it("honours the tools' environment overrides", () => {
    expect(
      defaultCatalogRoots({
        HOME: '/h',
        CLAUDE_CONFIG_DIR: '/c1,/c2',
        CODEX_HOME: '/cx',
        XDG_DATA_HOME: '/xdg',
        PI_CODING_AGENT_DIR: '/pi',
      }),
    ).toEqual({
      claude: '/c1/projects',
      codex: '/cx/sessions',
      opencode: '/xdg/opencode',
      pi: '/pi/sessions',
    });
    expect(
      defaultCatalogRoots({
        HOME: '/h',
        OPENCODE_DB: 'opencode-beta.db',
        PI_CODING_AGENT_SESSION_DIR: '/flat',
      }),
    ).toMatchObject({
      opencode: '/h/.local/share/opencode/opencode-beta.db',
      pi: '/flat',
    });
    expect(defaultCatalogRoots({ HOME: '/h', OPENCODE_DB: '/abs/oc.db' }).opencode).toBe('/abs/oc.db');
  });
});
