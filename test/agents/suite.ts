// The whole-turn suite every real agent runs (harness.ts has the steps): from both start paths a
// whole turn with Sightline's tools, a person stepping in and the agent as a watcher; a cancel
// while the model holds its stream; a crash mid-turn and Retry; and no process left after cancel,
// crash, delete and gateway close.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/gateway';
import { gate } from '../helpers/standin';
import {
  agentPid,
  CHECK_SCRIPT,
  expectCheckTurn,
  expectStepInAndWatch,
  MAIN,
  openHarness,
  treeOf,
  type AgentUnderTest,
  type Harness,
} from './harness';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const gone = (tag: string) => () => treeOf(tag).length === 0;

export function wholeTurnSuite(agent: AgentUnderTest): void {
  describe(`${agent.id}, a real agent, whole turns`, { timeout: 240_000 }, () => {
    let h: Harness;
    let personKey = '';
    let spawnedKey = '';
    beforeAll(async () => {
      h = await openHarness(agent);
    });
    afterAll(async () => {
      await h?.close();
      expect(treeOf(agent.id)).toEqual([]);
    });

    it('a person starts it (sessions.start): Sightline`s tools, the permission, the MCP answer, the final text; a step-in and a watch', async () => {
      h.model.script([...CHECK_SCRIPT]);
      const turns = h.model.turns.length;
      const info = await h.t.gw.sessions.start({
        acpProfileId: h.profile('person'),
        cwd: h.cwd(),
        message: 'Check on your coordinator.',
        parentKey: MAIN,
      });
      personKey = info.key;
      await expectCheckTurn(h, agent, personKey, turns);
      await expectStepInAndWatch(h, personKey);
    });

    it('a coordinator spawns it (sessions_spawn): the same whole turn, step-in and watch', async () => {
      h.model.script([...CHECK_SCRIPT]);
      const turns = h.model.turns.length;
      const mainRuns = h.t.gw.runs.list(MAIN).length;
      const r = await h.t.gw.tools.call(MAIN, 'sessions_spawn', {
        task: 'Check on your coordinator.',
        runtime: 'acp',
        profile: h.profile('spawned'),
      });
      if (!r.ok) throw new Error(r.error);
      spawnedKey = (r.details as { childSessionKey: string }).childSessionKey;
      await expectCheckTurn(h, agent, spawnedKey, turns);
      // The coordinator hears of its child's first run in a turn of its own: that turn is over
      // before the person steps in (a notice arriving during a turn would reopen it).
      await h.settle(MAIN, mainRuns + 1, 'the coordinator`s announcement turn');
      await expectStepInAndWatch(h, spawnedKey);
    });

    it('a cancel while the model holds its stream ends the run cancelled; the agent drops the stream and answers the next prompt', async () => {
      const { gw } = h.t;
      const held = gate();
      h.model.script([
        { text: 'A long answer that is never finished.', gate: held },
        { text: 'Still here.' },
      ]);
      const runs = gw.runs.list(personKey).length;
      const before = treeOf(`${agent.id}-person`).sort();
      await gw.human.send(personKey, 'Write a long answer.');
      await held.reached;
      expect(gw.runtime.cancel(personKey)).toBe(true);
      await h.settle(personKey, runs + 1, 'the cancelled run');
      expect(gw.runs.list(personKey).at(-1)).toMatchObject({ status: 'cancelled' });
      // The agent stops reading the model's stream (most close it; the stand-in then finishes it).
      await Promise.race([held.closedByClient, sleep(2_000)]);
      held.release();
      // A cooperative agent stays (with its conversation) for the next prompt, the same processes.
      const turns = h.model.turns.length;
      await gw.human.send(personKey, 'Are you there?');
      await h.settle(personKey, runs + 2, 'the run after the cancel');
      if (agent.answersLateAfterCancel) {
        // Ended with the cancelled turn's leftover; the question reaches the model around the
        // run's end (before or after the settle sees it: both were seen), so at most once so far.
        expect(h.model.turns.length).toBeLessThanOrEqual(turns + 1);
        await waitFor(() => h.model.turns.length === turns + 1, 10_000, 'the late model request');
      } else {
        expect(h.model.turns).toHaveLength(turns + 1);
        expect(h.lastReply(personKey)).toBe('Still here.');
      }
      expect(treeOf(`${agent.id}-person`).sort()).toEqual(before);
    });

    it('a crash mid-turn (SIGKILL) fails the run with the reason and takes its tree; Retry runs it again', async () => {
      const { gw } = h.t;
      const held = gate();
      h.model.script([{ text: 'An answer cut short by a crash.', gate: held }, { text: 'Back again.' }]);
      const runs = gw.runs.list(spawnedKey).length;
      const tag = `${agent.id}-spawned`;
      await gw.human.send(spawnedKey, 'Write another long answer.');
      await held.reached;
      const pid = agentPid(tag);
      if (pid === undefined) throw new Error('no agent process found in /proc');
      process.kill(pid, 'SIGKILL');
      await h.settle(spawnedKey, runs + 1, 'the failed run');
      expect(gw.runs.list(spawnedKey).at(-1)).toMatchObject({
        status: 'failed',
        outcome: 'error',
      });
      // The reason, and the tail of the agent's stderr when it said something.
      expect(gw.runs.list(spawnedKey).at(-1)?.error).toMatch(
        /^agent process was killed by SIGKILL( \(stderr: .*\))?$/s,
      );
      await waitFor(gone(tag), 10_000, 'the crashed agent`s tree to end');
      expect(gw.runtime.retry(spawnedKey)).toBe(true);
      await h.settle(spawnedKey, runs + 2, 'the retried run');
      expect(gw.runs.list(spawnedKey).at(-1)).toMatchObject({ status: 'idle' });
      expect(h.lastReply(spawnedKey)).toBe('Back again.');
      expect(agentPid(tag)).not.toBe(pid);
    });

    it('deleting a session, and closing the gateway, leave no process of the agent`s tree', async () => {
      const { gw } = h.t;
      expect(treeOf(`${agent.id}-person`).length).toBeGreaterThan(0);
      gw.sessions.delete(personKey);
      expect(gw.mcp.list(personKey)).toEqual([]);
      await waitFor(gone(`${agent.id}-person`), 10_000, 'the deleted session`s tree to end');
      expect(treeOf(`${agent.id}-spawned`).length).toBeGreaterThan(0);
      gw.close();
      await waitFor(gone(agent.id), 10_000, 'every tree to end with the gateway');
    });
  });
}
