// The upstream monitor over a paired node (issue 19.4, 19.6): a real node process (the bundled
// file, a local command) serving its own temp roots, and a real gateway. Per provider: a human
// prompt appended on the node's side → exactly one event and one notice; tool output → nothing;
// deleted → exactly one upstream_missing after three checks. The node killed for ten checks →
// no upstream_missing, the host offline; back → the next check counts what was added meanwhile,
// once.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { InboxItem } from '../../shared/ipc';
import { adoptedKeyFor } from '../../shared/session-keys';
import { ADOPTING_WATCHER } from '../../electron/gateway/catalog';
import { createApiHandlers } from '../../electron/gateway/api/handlers';
import { openTestGateway, tempDir, type TestGateway } from '../helpers/gateway';
import {
  CLAUDE_ID,
  CODEX_ID,
  PI_ID,
  claudeUser,
  codexUserMessage,
  piMessage,
  writeClaude,
  writeCodex,
  writePi,
} from '../catalog/fixtures';
import { line } from '../catalog/helpers';
import { makeNode, makeRoots, missingStreak, type TestNode } from './helpers';

const APP = { name: 'Sightline', version: 't', mode: 'web' as const, dataDir: '' };

let t: TestGateway;
let node: TestNode;

beforeEach(async () => {
  node = await makeNode();
  t = openTestGateway({ catalogRoots: makeRoots(tempDir('sightline-local-')) });
});
afterEach(() => {
  t.cleanup();
  fs.rmSync(node.dir, { recursive: true, force: true });
});

const events = (key: string, kind: string) =>
  t.gw.state.changesSince(key, 0).events.filter((e) => e.kind === kind);

interface Case {
  provider: 'claude' | 'codex' | 'pi';
  threadId: string;
  write(root: string): string;
  human(text: string): string;
  tool(): string;
}

const CASES: Case[] = [
  {
    provider: 'claude',
    threadId: CLAUDE_ID,
    write: (r) => writeClaude(r),
    human: (text) => claudeUser(text),
    tool: () => claudeUser([{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' }]),
  },
  {
    provider: 'codex',
    threadId: CODEX_ID,
    write: (r) => writeCodex(r),
    human: (text) => codexUserMessage(text),
    tool: () =>
      line({
        timestamp: '2026-03-02T09:21:00.000Z',
        type: 'response_item',
        payload: { type: 'function_call_output', call_id: 'call_1', output: 'ok' },
      }),
  },
  {
    provider: 'pi',
    threadId: PI_ID,
    write: (r) => writePi(r),
    human: (text) => piMessage({ role: 'user', content: [{ type: 'text', text }] }, 'e1'),
    tool: () =>
      piMessage({ role: 'toolResult', toolCallId: 't1', content: [{ type: 'text', text: 'ok' }] }, 'e2'),
  },
];

describe.each(CASES)('a remote $provider session', (c) => {
  it('is listed with its host, adopted, and counted exactly like a local one', async () => {
    const file = c.write(node.roots[c.provider]);
    const info = await t.gw.catalog.nodes.add({ command: node.command, name: 'devbox' });
    expect(info).toMatchObject({ name: 'devbox', state: 'online', sessions: 1, command: node.command });
    expect(fs.readFileSync(path.join(node.dataDir, 'id'), 'utf8').trim()).toBe(info.id);

    const listed = (await t.gw.catalog.listAsync()).filter((e) => e.remote);
    expect(listed).toEqual([
      expect.objectContaining({
        provider: c.provider,
        threadId: c.threadId,
        hostId: info.id,
        hostName: 'devbox',
      }),
    ]);

    const session = await t.gw.catalog.adopt({ provider: c.provider, threadId: c.threadId, hostId: info.id });
    const key = adoptedKeyFor(c.provider, c.threadId, info.id);
    expect(session.key).toBe(key);
    expect(events(key, 'adopted')[0]?.payload).toEqual({ catalogId: c.provider, hostId: info.id });
    expect((await t.gw.catalog.listAsync()).find((e) => e.remote)?.adopted).toBe(true);

    // A person types a prompt on the node's side: one event, one notice.
    fs.appendFileSync(file, c.human('please also check the refunds endpoint'));
    await t.gw.catalog.tick();
    expect(events(key, 'human_direct_message')).toHaveLength(1);
    expect(events(key, 'human_direct_message')[0]?.payload).toBeUndefined();
    expect(t.gw.notices.peek(ADOPTING_WATCHER)).toHaveLength(1);

    // Tool output: nothing. Two prompts in one check: one event with {turns: 2}.
    fs.appendFileSync(file, c.tool());
    await t.gw.catalog.tick();
    expect(events(key, 'human_direct_message')).toHaveLength(1);
    fs.appendFileSync(file, c.human('one') + c.human('two'));
    await t.gw.catalog.tick();
    expect(events(key, 'human_direct_message').map((e) => e.payload)).toEqual([undefined, { turns: 2 }]);

    // Deleted on the node: exactly one upstream_missing after three checks, and the link goes.
    fs.rmSync(file);
    await t.gw.catalog.tick();
    await t.gw.catalog.tick();
    expect(events(key, 'upstream_missing')).toHaveLength(0);
    await t.gw.catalog.tick();
    await t.gw.catalog.tick();
    expect(events(key, 'upstream_missing')).toHaveLength(1);
    expect(events(key, 'upstream_missing')[0]?.payload).toEqual({ channel: c.provider });
    expect(
      t.gw.db.prepare('SELECT 1 FROM catalog_upstream_links WHERE session_key = ?').get(key),
    ).toBeUndefined();
    // The inbox alert names the host, so "Re-adopt" looks on that node again.
    const { dispatch } = createApiHandlers(t.gw, { app: APP });
    const inbox = (await dispatch('inbox:list', {})) as { ok: true; value: InboxItem[] };
    expect(inbox.ok && inbox.value.filter((item) => item.type === 'upstream_missing')).toEqual([
      expect.objectContaining({
        sessionKey: key,
        provider: c.provider,
        threadId: c.threadId,
        hostId: info.id,
      }),
    ]);
  });
});

describe('the watch set on the node', () => {
  const streak = (key: string) => missingStreak(t.gw, key);

  it('a source missing for a check and then back, unchanged, resets the streak', async () => {
    const file = writeClaude(node.roots.claude);
    const { id } = await t.gw.catalog.nodes.add({ command: node.command });
    await t.gw.catalog.adopt({ provider: 'claude', threadId: CLAUDE_ID, hostId: id });
    const key = adoptedKeyFor('claude', CLAUDE_ID, id);
    const folder = path.dirname(file);
    fs.renameSync(folder, `${folder}.away`);
    await t.gw.catalog.tick();
    await t.gw.catalog.tick();
    expect(streak(key)).toBe(2);
    // The same file (same inode, same size) is back: an idle outcome, which resets the streak.
    fs.renameSync(`${folder}.away`, folder);
    await t.gw.catalog.tick();
    expect(streak(key)).toBe(0);
    fs.renameSync(folder, `${folder}.away`);
    await t.gw.catalog.tick();
    await t.gw.catalog.tick();
    expect(streak(key)).toBe(2);
    expect(events(key, 'upstream_missing')).toHaveLength(0);
  });
});
