// Agents on a node (issue 30.1): the frames of one agent channel carry a sequence number per
// direction, and each side keeps what it sent lately, so that after a dropped link the other side
// says the last number it got and hears the rest again: nothing lost, nothing twice. Shared by both
// ends of the link (the node bundles it).

/** How much of one channel's recent frames each side keeps for a replay. */
export const REPLAY_BYTES = 4 * 1024 * 1024;

export type Frame = Record<string, unknown>;

/** The frames one side sent on a channel, numbered, the newest kept for a replay. */
export class Outbox {
  private kept: { seq: number; frame: Frame; size: number }[] = [];
  private bytes = 0;
  /** The number of the last frame stamped. */
  seq = 0;

  constructor(private readonly max = REPLAY_BYTES) {}

  /** Numbers the frame and keeps it. */
  stamp(frame: Frame): Frame {
    const f: Frame = { ...frame, seq: ++this.seq };
    const size = typeof f.data === 'string' ? f.data.length + 64 : 256;
    this.kept.push({ seq: this.seq, frame: f, size });
    this.bytes += size;
    while (this.bytes > this.max && this.kept.length > 1) this.bytes -= this.kept.shift()!.size;
    return f;
  }

  /** The frames after `seq`, or undefined when some of them are no longer kept. */
  since(seq: number): Frame[] | undefined {
    if (seq >= this.seq) return [];
    const first = this.kept[0]?.seq ?? this.seq + 1;
    if (seq + 1 < first) return undefined;
    return this.kept.filter((k) => k.seq > seq).map((k) => k.frame);
  }
}

/**
 * The receiving side: a frame numbered at or below the last one taken is a replayed twin; one
 * that skips a number means frames were lost.
 */
export class Inbox {
  last = 0;
  take(seq: unknown): 'new' | 'twin' | 'gap' {
    if (typeof seq !== 'number' || !Number.isSafeInteger(seq)) return 'gap';
    if (seq <= this.last) return 'twin';
    if (seq !== this.last + 1) return 'gap';
    this.last = seq;
    return 'new';
  }
}

/** A channel id: the gateway picks it; the node takes nothing else. */
export const CHANNEL_ID = /^[a-z0-9][a-z0-9-]{7,63}$/;
