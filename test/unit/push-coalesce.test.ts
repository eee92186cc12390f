// Live output reaches the page token by token; one push joins each session stream's deltas
// (issue 17.1), keeping the order of everything per session.
import { describe, expect, it } from 'vitest';
import { coalesceDeltas } from '../../electron/gateway/api/push-bridge';
import type { GatewayEvent } from '../../shared/ipc';

const d = (
  sessionKey: string,
  stream: 'text' | 'thinking' | 'tool',
  text: string,
  runId = 'r1',
): GatewayEvent => ({
  type: 'run:delta',
  sessionKey,
  runId,
  stream,
  text,
});

describe('coalescing live output within one push', () => {
  it('joins the deltas of each session stream, at the place of the first', () => {
    const out = coalesceDeltas([
      d('a', 'text', 'Hel'),
      d('b', 'text', 'One'),
      d('a', 'thinking', 'hmm'),
      d('a', 'text', 'lo'),
      d('b', 'text', ' two'),
      d('a', 'thinking', '…'),
    ]);
    expect(out).toEqual([d('a', 'text', 'Hello'), d('b', 'text', 'One two'), d('a', 'thinking', 'hmm…')]);
  });

  it('never joins across another event of the same session, another run, or tool starts', () => {
    const landed: GatewayEvent = {
      type: 'transcript:appended',
      message: { id: 1, sessionKey: 'a', role: 'assistant', actorType: 'agent', text: 'Hello', createdAt: 1 },
    };
    const other: GatewayEvent = { type: 'session:changed', sessionKey: 'b' };
    const out = coalesceDeltas([
      d('a', 'text', 'Hel'),
      d('a', 'text', 'lo'),
      other,
      landed,
      d('a', 'text', 'Next'),
      d('a', 'text', ' run', 'r2'),
      d('a', 'tool', 'read_file'),
      d('a', 'tool', 'write_file'),
    ]);
    expect(out).toEqual([
      d('a', 'text', 'Hello'),
      other,
      landed,
      d('a', 'text', 'Next'),
      d('a', 'text', ' run', 'r2'),
      d('a', 'tool', 'read_file'),
      d('a', 'tool', 'write_file'),
    ]);
  });

  it('leaves a push without deltas as it is', () => {
    const events: GatewayEvent[] = [
      { type: 'catalog:changed' },
      { type: 'session:changed', sessionKey: 'a' },
    ];
    expect(coalesceDeltas(events)).toEqual(events);
  });
});
