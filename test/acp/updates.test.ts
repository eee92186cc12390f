import { mkdirSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeAllAcpChildren, type AcpPermissionRequest } from '../../electron/gateway/runtime/acp';
import { UpdateMapper } from '../../electron/gateway/runtime/acp/updates';
import { makeWorkspace, messages, startFixture } from './helpers';

const ws = makeWorkspace();
beforeAll(() => mkdirSync(ws.dir));
afterEach(() => closeAllAcpChildren());
afterAll(() => ws.cleanup());

const OPTIONS = [
  { optionId: 'allow-once', name: 'Allow once', kind: 'allow_once' },
  { optionId: 'reject-once', name: 'Reject', kind: 'reject_once' },
];

describe('AcpChild streamed updates and permissions', () => {
  it('streams message chunks, a tool call with its updates and a plan, in order', async () => {
    const { child, updates } = await startFixture(ws.dir);
    expect(await child.prompt('stream')).toEqual({ outcome: 'completed', stopReason: 'end_turn' });
    expect(updates).toEqual([
      {
        kind: 'plan',
        entries: [
          { content: 'Read the notes', status: 'in_progress', priority: 'high' },
          { content: 'Write the summary', status: 'pending', priority: 'medium' },
        ],
      },
      { kind: 'message', text: 'Reading ' },
      { kind: 'tool_call', toolCallId: 'call-1', title: 'Read notes.txt', status: 'pending' },
      // The protocol updates carry only the status; the title is filled in from the tool call.
      { kind: 'tool_call_update', toolCallId: 'call-1', title: 'Read notes.txt', status: 'in_progress' },
      { kind: 'tool_call_update', toolCallId: 'call-1', title: 'Read notes.txt', status: 'completed' },
      { kind: 'message', text: 'the notes. ' },
      { kind: 'message', text: 'Done.' },
    ]);
  });

  it('advertises the fs and terminal capabilities in initialize', async () => {
    const { child, updates } = await startFixture(ws.dir);
    await child.prompt('caps');
    const caps = JSON.parse(messages(updates).replace('caps: ', '')) as Record<string, unknown>;
    expect(caps.fs).toEqual({ readTextFile: true, writeTextFile: true });
    expect(caps.terminal).toBe(true);
    expect(caps.auth).toEqual({ terminal: true });
  });

  it('surfaces a permission request and relays allow-once', async () => {
    const asked: AcpPermissionRequest[] = [];
    const { child, updates } = await startFixture(ws.dir, {
      onPermission: (req) => {
        asked.push(req);
        return Promise.resolve({ outcome: 'selected', optionId: 'allow-once' });
      },
    });
    expect(await child.prompt('permission')).toEqual({ outcome: 'completed', stopReason: 'end_turn' });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toEqual({
      id: expect.stringMatching(/^acp-permission-\d+$/),
      toolCallId: 'call-rm',
      title: 'Delete build/',
      options: OPTIONS,
    });
    expect(updates.at(-1)).toEqual({ kind: 'message', text: 'permission: selected allow-once' });
  });

  it('relays a rejection', async () => {
    const { child, updates } = await startFixture(ws.dir, {
      onPermission: () => Promise.resolve({ outcome: 'selected', optionId: 'reject-once' }),
    });
    expect(await child.prompt('permission')).toEqual({ outcome: 'completed', stopReason: 'end_turn' });
    expect(updates.at(-1)).toEqual({ kind: 'message', text: 'permission: selected reject-once' });
  });

  it('answers cancelled for an option the agent did not offer, with a warning', async () => {
    const { child, updates, warnings } = await startFixture(ws.dir, {
      onPermission: () => Promise.resolve({ outcome: 'selected', optionId: 'allow-forever' }),
    });
    expect(await child.prompt('permission')).toEqual({ outcome: 'cancelled', stopReason: 'cancelled' });
    expect(updates.at(-1)).toEqual({ kind: 'message', text: 'permission: cancelled' });
    expect(warnings).toEqual([
      'ACP permission decision names an option the agent did not offer; answering cancelled',
    ]);
  });

  it('a cancel answers a question the person has not answered yet', async () => {
    let asked = false;
    const { child, updates } = await startFixture(ws.dir, {
      onPermission: () => {
        asked = true;
        return new Promise(() => undefined);
      },
    });
    const running = child.prompt('permission');
    await expect.poll(() => asked).toBe(true);
    child.cancel();
    expect(await running).toEqual({ outcome: 'cancelled', stopReason: 'cancelled' });
    expect(updates.at(-1)).toEqual({ kind: 'message', text: 'permission: cancelled' });
  });

  it('keeps the connection alive when onUpdate throws', async () => {
    const { child, warnings } = await startFixture(ws.dir, {
      onUpdate: () => {
        throw new Error('consumer bug');
      },
    });
    expect(await child.prompt('answer')).toEqual({ outcome: 'completed', stopReason: 'end_turn' });
    expect(warnings).toEqual(['ACP onUpdate handler threw']);
  });
});

describe('UpdateMapper', () => {
  it('maps a tool call announced again (as Claude Code`s adapter does) to an update, shown once', () => {
    const mapper = new UpdateMapper();
    const call = {
      sessionUpdate: 'tool_call',
      toolCallId: 'toolu_1',
      title: 'mcp__sightline__session_status',
    } as const;
    expect(mapper.map(call)).toEqual({
      kind: 'tool_call',
      toolCallId: 'toolu_1',
      title: call.title,
      status: 'pending',
    });
    expect(mapper.map({ ...call, rawInput: { sessionKey: 'agent:main:main' } })).toEqual({
      kind: 'tool_call_update',
      toolCallId: 'toolu_1',
      title: call.title,
      status: 'pending',
    });
  });
});
