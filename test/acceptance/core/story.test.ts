/* eslint-disable @typescript-eslint/no-explicit-any -- acceptance suite: tool details are untyped JSON */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  MAIN,
  ensureSession,
  findStrings,
  noticeText,
  openEnv,
  stateEntries,
  waitFor,
  type Env,
} from './harness';

let env: Env;
beforeEach(() => {
  env = openEnv();
  ensureSession(env.gw, MAIN);
});
afterEach(() => env.close());

async function spawn(args: Record<string, unknown>) {
  const r = await env.gw.tools.call(MAIN, 'sessions_spawn', args);
  if (!r.ok) throw new Error(`spawn failed: ${r.error}`);
  const key = findStrings(r.details, /^agent:main:(subagent|acp):/)[0] as string;
  expect(key, JSON.stringify(r.details)).toBeTruthy();
  return key;
}

function collectStateChanges(v: unknown, out: any[] = []): any[] {
  if (typeof v === 'string') {
    const t = v.trim();
    if (t.startsWith('{') && t.includes('stateChanges')) {
      try {
        collectStateChanges(JSON.parse(t), out);
      } catch {
        /* not JSON */
      }
    }
  } else if (Array.isArray(v)) v.forEach((x) => collectStateChanges(x, out));
  else if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (o.stateChanges && typeof o.stateChanges === 'object') out.push(o.stateChanges);
    Object.values(o).forEach((x) => collectStateChanges(x, out));
  }
  return out;
}

async function history(key: string): Promise<unknown> {
  const r = await env.gw.tools.call(MAIN, 'sessions_history', { sessionKey: key });
  if (!r.ok) throw new Error(r.error);
  return r.details;
}

describe('the coordinator story', () => {
  it('a human intervention in a worker reaches the coordinator once and is reconciled', async () => {
    const { gw } = env;
    await gw.human.send(
      MAIN,
      'Coordinate two workers: one drafts the quarterly report, one checks the numbers.',
    );
    const w1 = await spawn({ task: 'Draft the quarterly report.', label: 'drafter' });
    const w2 = await spawn({ task: 'Check the numbers.', label: 'checker' });
    const seed1 = gw.state.cursor(MAIN, w1)!;
    expect(seed1).toBeDefined();
    expect(seed1.lastSeen).toBe(seed1.notified);
    expect(seed1.material).toBe(seed1.lastSeen);
    expect(gw.state.cursor(MAIN, w2)).toBeDefined();
    const spawnEv = gw.state.changesSince(w1, 0).events.find((e) => e.kind === 'child_spawned')!;
    expect(seed1.lastSeen).toBe(spawnEv.sequence);

    await gw.human.send(w1, 'Use the Q3 numbers, not Q2.');
    await gw.human.send(w1, 'And round to thousands.');
    const human = gw.state.changesSince(w1, 0).events.filter((e) => e.kind === 'human_direct_message');
    expect(human).toHaveLength(2);
    expect(human[0]).toMatchObject({ actorType: 'human', summary: 'human message via desktop' });
    // exactly one notice line in the coordinator's queue
    expect(stateEntries(gw, MAIN).map((e) => e.text)).toEqual([noticeText(w1, seed1.lastSeen)]);

    // the heartbeat wake runs a coordinator turn that reconciles with the right changesSince:
    // the transcript shows the session_status result (stateChanges) holding exactly the delta after the seed,
    // and a reply that mentions the human intervention.
    const found = await waitFor(async () => {
      const d = await history(MAIN);
      const deltas = collectStateChanges(d);
      const delta = deltas.find((c) => c.events.some((e: any) => e.sequence === human[0]!.sequence));
      const replies = findStrings(d, /human/i).filter(
        (t) => !t.trim().startsWith('{') && !t.includes('Coordinate two workers'),
      );
      return delta && replies.length > 0 ? { delta, replies } : undefined;
    });
    expect(found!.delta.events.map((e: any) => e.sequence)).toEqual(
      gw.state
        .changesSince(w1, seed1.lastSeen)
        .events.filter((e) => e.sequence <= human[1]!.sequence)
        .map((e) => e.sequence),
    );
    expect(found!.delta.events.every((e: any) => e.sequence > seed1.lastSeen)).toBe(true);
    expect(found!.delta.historyGap).toBe(false);
    await waitFor(() => gw.state.cursor(MAIN, w1)!.lastSeen === human[1]!.sequence);
  });

  it('a timed-out worker yields run_failed {outcome: "timeout"}', async () => {
    const w = await spawn({ task: 'A long job.', timeoutSeconds: 1 });
    const ev = await waitFor(() =>
      env.gw.state
        .changesSince(w, 0)
        .events.find((e) => e.kind === 'run_failed' || e.kind === 'run_completed'),
    );
    expect(ev).toMatchObject({
      kind: 'run_failed',
      summary: 'child run timed out',
      payload: { outcome: 'timeout' },
    });
    const st = await env.gw.tools.call(MAIN, 'session_status', { sessionKey: w, changesSince: 0 });
    expect(
      st.ok && (st.details as any).stateChanges.events.find((e: any) => e.kind === 'run_failed').payload,
    ).toEqual({ outcome: 'timeout' });
  });

  it('a cancelled worker yields run_failed {outcome: "cancelled"}', async () => {
    const w = await spawn({ task: 'A job that will be cancelled.' });
    // The contract has no cancel verb; resetting the running session is the only contract-level way to stop it.
    env.gw.sessions.reset(w);
    const ev = await waitFor(() =>
      env.gw.state
        .changesSince(w, 0)
        .events.find((e) => e.kind === 'run_failed' || e.kind === 'run_completed'),
    );
    expect(ev).toMatchObject({
      kind: 'run_failed',
      summary: 'child run cancelled',
      payload: { outcome: 'cancelled' },
    });
  });
});
