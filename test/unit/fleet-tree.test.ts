// The fleet tree (renderer/src/features/fleet/tree.ts) lists every session exactly once, whatever
// the parents say: children under their parent, a missing parent or one in another agent makes a
// session a root, and sessions whose parents form a cycle are listed rather than lost.
import { describe, expect, it } from 'vitest';
import { buildTree } from '../../renderer/src/features/fleet/tree';
import { sessionFromWire, type SessionView } from '../../shared/ipc/types';
import { parseSessionKey } from '../../shared/session-keys';

let clock = 1_000;
const session = (key: string, parentKey?: string): SessionView =>
  sessionFromWire({
    key,
    agentId: key.split(':')[1]!,
    createdAt: clock++,
    updatedAt: clock,
    kind: parseSessionKey(key).kind,
    ...(parentKey ? { parentKey } : {}),
  });

const rows = (all: SessionView[]) =>
  buildTree([], all).flatMap((g) =>
    g.rows.map((r) => `${g.agentId} ${'  '.repeat(r.depth)}${r.session.key}`),
  );

describe('the fleet tree', () => {
  it('puts children under their parent and makes orphans and cross-agent children roots', () => {
    expect(
      rows([
        session('agent:main:main'),
        session('agent:main:subagent:a', 'agent:main:main'),
        session('agent:main:subagent:b', 'agent:main:subagent:a'),
        session('agent:main:subagent:orphan', 'agent:main:subagent:gone'),
        session('agent:ops:subagent:x', 'agent:main:main'),
      ]),
    ).toEqual([
      'main agent:main:main',
      'main   agent:main:subagent:a',
      'main     agent:main:subagent:b',
      'main agent:main:subagent:orphan',
      'ops agent:ops:subagent:x',
    ]);
  });

  it('lists sessions whose parents form a cycle, each once', () => {
    const all = [
      session('agent:main:main'),
      session('agent:main:subagent:a', 'agent:main:subagent:b'),
      session('agent:main:subagent:b', 'agent:main:subagent:a'),
      session('agent:main:subagent:self', 'agent:main:subagent:self'),
      session('agent:main:subagent:c', 'agent:main:subagent:b'),
    ];
    expect(rows(all)).toEqual([
      'main agent:main:main',
      'main agent:main:subagent:self',
      'main agent:main:subagent:a',
      'main   agent:main:subagent:b',
      'main     agent:main:subagent:c',
    ]);
  });
});
