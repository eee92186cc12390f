// The renderer's live store: running steps apply with every batch, the fleet's activity lines at
// most every 100 ms (a lone line at once), so 200 streaming sessions do not repaint the fleet in
// every frame (acp-live bench).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { GatewayEvent } from '../../shared/ipc';
import { useLive } from '../../renderer/src/stores/live';

const A = 'agent:main:acp:aaaaaaaa';
const B = 'agent:main:acp:bbbbbbbb';
const delta = (sessionKey: string, text: string): GatewayEvent => ({
  type: 'run:delta',
  sessionKey,
  runId: `run-${sessionKey}`,
  stream: 'text',
  text,
});
const apply = (...events: GatewayEvent[]) => useLive.getState().applyEvents(events);

describe('live store', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(1_000_000);
    useLive.getState().reset();
  });
  afterEach(() => vi.useRealTimers());

  it('shows a lone line at once, then joins the lines of the next 100 ms into one change', () => {
    apply(delta(A, 'seq 1 sent\n'));
    expect(useLive.getState().lines).toEqual({ [A]: 'seq 1 sent' });

    vi.advanceTimersByTime(40);
    apply(delta(A, 'seq 2 sent\n'), delta(B, 'first of B\n'));
    apply(delta(A, 'seq 3 sent\n'));
    // The steps (the open transcript) have every line already; the fleet rows not yet.
    expect(useLive.getState().steps[A]!.text).toBe('seq 1 sent\nseq 2 sent\nseq 3 sent\n');
    expect(useLive.getState().steps[B]!.text).toBe('first of B\n');
    expect(useLive.getState().lines).toEqual({ [A]: 'seq 1 sent' });

    vi.advanceTimersByTime(59);
    expect(useLive.getState().lines).toEqual({ [A]: 'seq 1 sent' });
    vi.advanceTimersByTime(1);
    expect(useLive.getState().lines).toEqual({ [A]: 'seq 3 sent', [B]: 'first of B' });
  });

  it("removes a deleted session's line, even one still waiting", () => {
    apply(delta(A, 'one\n'));
    apply(delta(B, 'two\n'), { type: 'session:deleted', sessionKey: B });
    apply({ type: 'session:deleted', sessionKey: A });
    vi.advanceTimersByTime(100);
    expect(useLive.getState().lines).toEqual({});
    expect(useLive.getState().steps).toEqual({});
  });

  it('reset drops the lines still waiting', () => {
    apply(delta(A, 'one\n'));
    apply(delta(A, 'two\n'));
    useLive.getState().reset();
    vi.advanceTimersByTime(100);
    expect(useLive.getState().lines).toEqual({});
  });
});
