// The renderer's inbox store re-reads the queue when a push changes it, one read in flight and at
// most one after it: 200 runs ending at once push 200 `done_unseen` statuses, and a read for each
// was 200 lists of every session in the gateway (the acp-live benchmark's profile).
import { describe, expect, it, vi } from 'vitest';
import type { GatewayEvent, InboxItem } from '../../shared/ipc';

const answers: Array<(items: InboxItem[]) => void> = [];
vi.mock('../../renderer/src/lib/api', () => ({
  call: vi.fn((channel: string) => {
    if (channel !== 'inbox:list') throw new Error(`unexpected call ${channel}`);
    return new Promise<InboxItem[]>((resolve) => answers.push(resolve));
  }),
}));
const { useInbox } = await import('../../renderer/src/stores/inbox');

const finished = (n: number): GatewayEvent => ({
  type: 'session:status',
  sessionKey: `agent:main:acp:${String(n).padStart(8, '0')}`,
  status: { status: 'done_unseen', since: 1_000 + n, runId: `run-${n}` },
});
const unseen = (n: number): InboxItem => ({
  id: `done:run-${n}`,
  type: 'done_unseen',
  sessionKey: `agent:main:acp:${String(n).padStart(8, '0')}`,
  runId: `run-${n}`,
  endedAt: 1_000 + n,
});

describe('inbox store', () => {
  it('reads the queue twice for 200 runs ending in 200 pushes, and shows the second read', async () => {
    for (let n = 1; n <= 200; n++) useInbox.getState().applyEvents([finished(n)]);
    expect(answers.length).toBe(1);

    answers[0]!([unseen(1)]);
    await vi.waitFor(() => expect(answers.length).toBe(2));
    answers[1]!([unseen(1), unseen(2)]);
    await vi.waitFor(() =>
      expect(useInbox.getState().items.map((i) => i.id)).toEqual(['done:run-1', 'done:run-2']),
    );
    expect(answers.length).toBe(2);

    // A later push reads again.
    useInbox.getState().applyEvents([finished(201)]);
    expect(answers.length).toBe(3);
    answers[2]!([]);
    await vi.waitFor(() => expect(useInbox.getState().items).toEqual([]));
  });
});
