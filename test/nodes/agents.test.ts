// Agents on a paired node (issue 30.1), over a real OpenSSH server (sshd.ts) with a real agent
// (Codex through codex-acp, against the Responses stand-in): a person starts it on the node, a
// whole turn with Sightline's MCP tool answered through the link (no port on the node), a cancel,
// a dropped link re-attached without losing or doubling an update, a crash and Retry on the same
// node, hostile frames from the node refused while the link keeps serving, no process left on the
// node after delete, a gateway restart (the node stops the agent: README → Decisions), and a link
// that stays down past the grace the person set ending the run `failed: link lost` with the node
// stopping the agent. The folder check and sessions_spawn with a node go through the same link.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiHandlers } from '../../electron/gateway/api/handlers';
import { waitFor } from '../helpers/gateway';
import { gate, startResponsesStandIn } from '../helpers/standin';
import { ACP_AGENTS, ensureTool } from '../tools/install';
import {
  CHECK_SCRIPT,
  expectCheckTurn,
  MAIN,
  openHarness,
  treeOf,
  type AgentUnderTest,
  type Harness,
} from '../agents/harness';
import { makeRoots, nodeBundle } from './helpers';
import { startSshd, type Sshd } from './sshd';
import { tempDir } from '../helpers/temp';
import { httpClient, texts } from '../mcp/helpers';

const spec = ACP_AGENTS.find((a) => a.id === 'codex-acp')!;
let bin = '';

const agent: AgentUnderTest = {
  id: 'node-codex',
  startModel: () => startResponsesStandIn(),
  launch(model, home) {
    const codexHome = path.join(home, 'codex');
    fs.mkdirSync(codexHome, { recursive: true });
    fs.writeFileSync(
      path.join(codexHome, 'config.toml'),
      [
        'model = "gpt-5.4"',
        'model_provider = "standin"',
        '[model_providers.standin]',
        'name = "Stand-in"',
        `base_url = "${model.url}/v1"`,
        'wire_api = "responses"',
        'env_key = "STANDIN_API_KEY"',
        '',
      ].join('\n'),
    );
    return {
      command: process.execPath,
      args: [bin],
      env: { HOME: home, CODEX_HOME: codexHome, STANDIN_API_KEY: 'sk-standin' },
    };
  },
  asks: true,
  client: /codex/,
  // codex-acp 0.16.0 reports its context window only (as in test/agents/codex-acp.test.ts).
  reports: { tokens: 'none', cost: false, contextSize: 258_400 },
};

/** The ssh clients this test process started (the gateway's links to the node). */
function sshClients(): number[] {
  return fs.readdirSync('/proc').flatMap((name) => {
    if (!/^\d+$/.test(name)) return [];
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const argv = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      return ppid === process.pid && argv[0] === 'ssh' && argv.includes('sightline-test')
        ? [Number(name)]
        : [];
    } catch {
      return [];
    }
  });
}

/**
 * Runs the node file given as its first argument and passes its frames through, slipping in
 * hostile ones before the first frame of an agent's output (each carries that frame's number).
 */
const HOSTILE_WRAPPER = `import { spawn } from 'node:child_process';
const [bundle, ...args] = process.argv.slice(2);
const node = spawn(process.execPath, [bundle, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
process.stdin.pipe(node.stdin);
node.on('exit', (code) => process.exit(code ?? 1));
const MAGIC = Buffer.from('SIGHTLINE-NODE\\n');
const frame = (o) => { const b = Buffer.from(JSON.stringify(o)); const h = Buffer.alloc(4); h.writeUInt32BE(b.length); return Buffer.concat([h, b]); };
const hostile = (f) => [
  { type: 'weird', ch: f.ch, seq: f.seq, data: 'AAAA' },
  { type: 'out', ch: 'not-a-channel-of-yours', seq: 1, data: 'AAAA' },
  { type: 'out', ch: f.ch, seq: 'x', data: 'AAAA' },
  { type: 'out', ch: f.ch, seq: f.seq, data: 12 },
  { type: 'out', ch: f.ch, seq: f.seq, data: 'not base64!' },
  { type: 'exit', ch: f.ch, seq: f.seq, code: 'soon' },
  { type: 'res', id: 'nine', ok: true },
];
let buf = Buffer.alloc(0);
let greeted = false;
let slipped = false;
node.stdout.on('data', (d) => {
  buf = Buffer.concat([buf, d]);
  if (!greeted) {
    const i = buf.indexOf(MAGIC);
    if (i < 0) return;
    process.stdout.write(buf.subarray(0, i + MAGIC.length));
    buf = buf.subarray(i + MAGIC.length);
    greeted = true;
  }
  while (buf.length >= 4 && buf.length >= 4 + buf.readUInt32BE(0)) {
    const whole = buf.subarray(0, 4 + buf.readUInt32BE(0));
    buf = buf.subarray(whole.length);
    const f = JSON.parse(whole.subarray(4).toString());
    if (!slipped && f.type === 'out') {
      slipped = true;
      for (const h of hostile(f)) process.stdout.write(frame(h));
    }
    process.stdout.write(whole);
  }
});
`;

/** The agent process itself: the marked process whose parent (the node process) is not marked. */
function topOf(tag: string): number {
  const tree = treeOf(tag);
  const top = tree.find((pid) => !tree.includes(parentOf(pid)));
  if (top === undefined) throw new Error(`no agent process of ${tag} found in /proc`);
  return top;
}

const RESTART_REASON = 'interrupted by a restart';

/** The page's own calls (the same handlers the renderer reaches). */
const api = () =>
  createApiHandlers(h.t.gw, { app: { name: 'Sightline', version: 't', mode: 'web', dataDir: '/tmp' } });

/** The parent of a process (the node process for an agent it started). */
const parentOf = (pid: number) => {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
};

let sshd: Sshd;
let h: Harness;
let nodeId = '';
let key = '';
let dir = '';

beforeAll(async () => {
  bin = fs.realpathSync(await ensureTool(spec, spec.pinned));
  dir = tempDir('sightline-node-agents-');
  const bundle = await nodeBundle();
  sshd = await startSshd(dir);
  h = await openHarness(agent, {
    catalogRoots: makeRoots(tempDir('sightline-local-')),
    nodes: {
      sshCommand: ['ssh', '-F', sshd.config()],
      bundle,
      helloTimeoutMs: 15_000,
    },
  });
  nodeId = (await h.t.gw.catalog.nodes.add({ ssh: 'sightline-test', name: 'build-box' })).id;
}, 600_000);

afterAll(async () => {
  await h?.close();
  sshd?.stop();
  await waitFor(() => treeOf(agent.id).length === 0, 10_000, 'every agent tree to end');
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('an ACP agent on a paired node, over real sshd', { timeout: 180_000 }, () => {
  it('a person starts it on the node: the consent names the node; a whole turn with an MCP tool call through the link', async () => {
    const asked: string[] = [];
    h.t.gw.consent.plug(async (q) => {
      asked.push(`${q.title} | ${q.command.cwd}`);
      return true;
    });
    h.model.script([...CHECK_SCRIPT]);
    const turns = h.model.turns.length;
    const cwd = h.cwd();
    const info = await h.t.gw.sessions.start({
      acpProfileId: h.profile('person'),
      cwd,
      message: 'Check on your coordinator.',
      parentKey: MAIN,
      node: nodeId,
    });
    key = info.key;
    expect(asked).toEqual([expect.stringMatching(new RegExp(`on the node "build-box" \\| ${cwd}$`))]);
    await expectCheckTurn(h, agent, key, turns);
    // The agent runs under the node process (started over SSH), not under the gateway.
    const tree = treeOf(`${agent.id}-person`);
    expect(tree.length).toBeGreaterThan(0);
    expect(tree.some((pid) => parentOf(pid) === process.pid)).toBe(false);
  });

  it('New session checks the folder on the node it runs on (folders:check with node)', async () => {
    const cwd = h.cwd();
    expect(await api().dispatch('folders:check', { path: cwd, node: nodeId })).toEqual({
      ok: true,
      value: { path: cwd, ok: true },
    });
    expect(await api().dispatch('folders:check', { path: '/no/such/folder', node: nodeId })).toEqual({
      ok: true,
      value: {
        path: '/no/such/folder',
        ok: false,
        reason: 'the folder does not exist on this node: /no/such/folder',
      },
    });
    expect(await api().dispatch('folders:check', { path: cwd, node: 'no-such-node' })).toMatchObject({
      ok: true,
      value: { ok: false, reason: expect.stringContaining('no-such-node') },
    });
  });

  it('sessions_spawn through the real MCP server: node by name, checked like every argument, the same start path', async () => {
    const { gw } = h.t;
    const asked: string[] = [];
    gw.consent.plug(async (q) => {
      asked.push(`${q.title} | ${q.command.cwd}`);
      return true;
    });
    const issued = await gw.mcp.issue(MAIN, { label: 'coordinator', reach: 'tree' });
    const mcp = await httpClient(issued.url, issued.secret);
    try {
      const profile = h.profile('spawned');
      const cwd = h.cwd();
      const refused = async (args: Record<string, unknown>) => {
        const r = await mcp.call('sessions_spawn', { task: 'x', ...args });
        expect(r.isError).toBe(true);
        return texts(r).join('');
      };
      expect(await refused({ runtime: 'acp', profile, node: 'nope', cwd })).toBe(
        'Unknown node: nope (paired nodes: build-box)',
      );
      expect(await refused({ runtime: 'native', node: 'build-box', cwd })).toBe(
        'Only an ACP agent runs on a paired node: use runtime "acp"',
      );
      expect(await refused({ runtime: 'acp', profile, node: 'build-box', cwd, isolation: 'worktree' })).toBe(
        'Worktrees on a paired node are not supported yet: start the agent in place on the node',
      );
      expect(await refused({ runtime: 'acp', profile, node: 'build-box', cwd: 'relative/dir' })).toBe(
        'cwd must be an absolute path on the node: relative/dir',
      );
      expect(await refused({ runtime: 'acp', profile, cwd })).toBe(
        'cwd is for an agent on a node: give node too',
      );
      expect(asked).toEqual([]);

      h.model.script([{ text: 'Spawned on the node.' }]);
      const r = await mcp.call('sessions_spawn', {
        task: 'Say where you run.',
        runtime: 'acp',
        profile,
        node: 'build-box',
        cwd,
      });
      expect(r.isError).toBeFalsy();
      const spawned = r.structuredContent as { childSessionKey: string; node: string; cwd: string };
      expect(spawned).toMatchObject({ status: 'accepted', runtime: 'acp', node: nodeId, cwd });
      await h.settle(spawned.childSessionKey, 1, 'the spawned run on the node');
      expect(gw.runs.list(spawned.childSessionKey).at(-1)).toMatchObject({ status: 'idle' });
      expect(h.lastReply(spawned.childSessionKey)).toBe('Spawned on the node.');
      expect(gw.sessions.get(spawned.childSessionKey)).toMatchObject({ parentKey: MAIN, cwd });
      // The person was asked, naming the node and the folder there; the agent runs under the node.
      expect(asked).toEqual([expect.stringMatching(new RegExp(`on the node "build-box" \\| ${cwd}$`))]);
      const tree = treeOf(`${agent.id}-spawned`);
      expect(tree.length).toBeGreaterThan(0);
      expect(tree.some((pid) => parentOf(pid) === process.pid)).toBe(false);
      gw.sessions.delete(spawned.childSessionKey);
      await waitFor(() => treeOf(`${agent.id}-spawned`).length === 0, 10_000, 'the spawned agent to end');
    } finally {
      await mcp.close();
    }
  });

  it('a folder that is not on the node, and a worktree on a node, are refused with a message', async () => {
    await expect(
      h.t.gw.sessions.start({
        acpProfileId: h.profile('person'),
        cwd: '/no/such/folder',
        message: 'x',
        node: nodeId,
      }),
    ).rejects.toThrow('the folder does not exist on this node: /no/such/folder');
    await expect(
      h.t.gw.sessions.start({
        acpProfileId: h.profile('person'),
        cwd: h.cwd(),
        message: 'x',
        node: nodeId,
        isolation: 'worktree',
      }),
    ).rejects.toThrow(
      'Worktrees on a paired node are not supported yet: start the agent in place on the node',
    );
  });

  it('a cancel while the model holds its stream ends the run cancelled; the agent answers the next prompt', async () => {
    const { gw } = h.t;
    const held = gate();
    h.model.script([{ text: 'A long answer that is never finished.', gate: held }, { text: 'Still here.' }]);
    const runs = gw.runs.list(key).length;
    await gw.human.send(key, 'Write a long answer.');
    await held.reached;
    expect(gw.runtime.cancel(key)).toBe(true);
    await h.settle(key, runs + 1, 'the cancelled run');
    expect(gw.runs.list(key).at(-1)).toMatchObject({ status: 'cancelled' });
    held.release();
    await gw.human.send(key, 'Are you there?');
    await h.settle(key, runs + 2, 'the run after the cancel');
    expect(h.lastReply(key)).toBe('Still here.');
  });

  it('a dropped link: the agent keeps running on the node and is attached again; its answer arrives once', async () => {
    const { gw } = h.t;
    const held = gate();
    h.model.script([{ text: 'Written while the link was down.', gate: held }]);
    const runs = gw.runs.list(key).length;
    const before = treeOf(`${agent.id}-person`).sort();
    await gw.human.send(key, 'Answer across a dropped link.');
    await held.reached;
    const clients = sshClients();
    expect(clients).toHaveLength(1);
    process.kill(clients[0]!, 'SIGKILL');
    await waitFor(() => gw.catalog.nodes.list()[0]?.state === 'offline', 10_000, 'the node to go offline');
    // The model finishes while the link is down: the node keeps the agent's output.
    held.release();
    await h.settle(key, runs + 1, 'the run across the drop');
    expect(gw.runs.list(key).at(-1)).toMatchObject({ status: 'idle' });
    const answers = gw.transcripts.all(key).filter((m) => m.text === 'Written while the link was down.');
    expect(answers).toHaveLength(1);
    expect(treeOf(`${agent.id}-person`).sort()).toEqual(before);
    expect(sshClients()).toHaveLength(1);
  });

  it('a crash on the node mid-turn (SIGKILL) fails the run with the reason, takes its tree; Retry runs it on the node again', async () => {
    const { gw } = h.t;
    const held = gate();
    h.model.script([{ text: 'An answer cut short by a crash.', gate: held }, { text: 'Back again.' }]);
    const runs = gw.runs.list(key).length;
    const tag = `${agent.id}-person`;
    await gw.human.send(key, 'Write another long answer.');
    await held.reached;
    const pid = topOf(tag);
    process.kill(pid, 'SIGKILL');
    await h.settle(key, runs + 1, 'the failed run');
    expect(gw.runs.list(key).at(-1)).toMatchObject({ status: 'failed', outcome: 'error' });
    expect(gw.runs.list(key).at(-1)?.error).toMatch(
      /^agent process was killed by SIGKILL( \(stderr: .*\))?$/s,
    );
    // Nothing of the crashed agent is left on the node (/proc), and the link still serves.
    await waitFor(() => treeOf(tag).length === 0, 10_000, 'the crashed agent`s tree to end');
    held.release();
    expect(gw.runtime.retry(key)).toBe(true);
    await h.settle(key, runs + 2, 'the retried run');
    expect(gw.runs.list(key).at(-1)).toMatchObject({ status: 'idle' });
    expect(h.lastReply(key)).toBe('Back again.');
    // A new agent, on the same node: under the node process again, not under the gateway.
    const again = topOf(tag);
    expect(again).not.toBe(pid);
    expect(parentOf(again)).not.toBe(process.pid);
    expect(sshClients()).toHaveLength(1);
  });

  it('malformed and unknown frames from the node side are refused with a clear error; the link keeps serving', async () => {
    const { gw } = h.t;
    // The same real node, behind a wrapper on the node that slips hostile frames in before the
    // agent's first output: each is refused (logged) and the turn goes on as if they never came.
    const wrapper = path.join(dir, 'hostile-wrapper.mjs');
    fs.writeFileSync(wrapper, HOSTILE_WRAPPER);
    const bundle = await nodeBundle();
    const hostile = await gw.catalog.nodes.add({
      ssh: 'sightline-test',
      name: 'hostile-box',
      nodeCommand: [
        process.execPath,
        wrapper,
        bundle,
        '--stdio',
        '--data-dir',
        path.join(dir, 'hostile-node'),
      ],
    });
    h.model.script([{ text: 'Answered past the hostile frames.' }]);
    const info = await gw.sessions.start({
      acpProfileId: h.profile('hostile'),
      cwd: h.cwd(),
      message: 'Answer through a hostile link.',
      node: hostile.id,
    });
    await h.settle(info.key, 1, 'the run past the hostile frames');
    expect(gw.runs.list(info.key).at(-1)).toMatchObject({ status: 'idle' });
    expect(h.lastReply(info.key)).toBe('Answered past the hostile frames.');
    const refused = h.t.logger.lines
      .filter((l) => l.fields?.nodeId === hostile.id && /refused/.test(l.msg))
      .map((l) => `${l.msg}: ${String(l.fields?.type)} ${String(l.fields?.why ?? '')}`.trim());
    expect(refused).toEqual([
      'nodes: refused a malformed frame from the node: weird not a frame type of an agent channel',
      'nodes: refused a frame for an agent this node does not run: out',
      'nodes: refused a malformed frame from the node: out seq must be a positive whole number',
      'nodes: refused a malformed frame from the node: out data must be base64 text',
      'nodes: refused a malformed frame from the node: out data must be base64 text',
      'nodes: refused a malformed frame from the node: exit code must be a number',
      'nodes: refused a malformed frame from the node: res an answer without a numeric id',
    ]);
    expect(gw.catalog.nodes.list().find((n) => n.id === hostile.id)?.state).toBe('online');
    gw.sessions.delete(info.key);
    await waitFor(() => treeOf(`${agent.id}-hostile`).length === 0, 10_000, 'the agent on the node to end');
    gw.catalog.nodes.remove(hostile.id);
  });

  it('deleting the session leaves no process of the agent on the node', async () => {
    expect(treeOf(`${agent.id}-person`).length).toBeGreaterThan(0);
    h.t.gw.sessions.delete(key);
    await waitFor(
      () => treeOf(`${agent.id}-person`).length === 0,
      10_000,
      'the agent tree on the node to end',
    );
  });

  it('a gateway closed while a node agent runs: the node stops it, and the reopened gateway shows the run ended with the reason', async () => {
    const held = gate();
    h.model.script([{ text: 'Never heard after the restart.', gate: held }]);
    const info = await h.t.gw.sessions.start({
      acpProfileId: h.profile('restart'),
      cwd: h.cwd(),
      message: 'Answer, slowly.',
      node: nodeId,
    });
    await held.reached;
    const tag = `${agent.id}-restart`;
    expect(treeOf(tag).length).toBeGreaterThan(0);
    // README → Decisions: no re-attach across a gateway restart; the node stops the agent at once.
    const gw = h.t.restart();
    await waitFor(() => treeOf(tag).length === 0, 10_000, 'the node to stop the agent');
    expect(gw.runs.list(info.key).at(-1)).toMatchObject({ status: 'failed', error: RESTART_REASON });
    held.release();
    gw.consent.plug(async () => true);
    // As for an agent on this machine: its conversation ended with the gateway, and says so.
    await expect(gw.human.send(info.key, 'Are you back?')).rejects.toThrow(
      `The ACP agent of ${info.key} is not running in this gateway (it ended with a restart)`,
    );
    gw.sessions.delete(info.key);
    await waitFor(() => treeOf(tag).length === 0, 10_000, 'the agent to end with its session');
  });

  it('a link down past the grace the person set: the run ends failed: link lost, and the node stops the agent', async () => {
    const { gw } = h.t;
    expect(gw.person.preferences.get().nodes).toEqual({ agentGraceSeconds: 120 });
    const held = gate();
    h.model.script([{ text: 'Never heard.', gate: held }]);
    const info = await gw.sessions.start({
      acpProfileId: h.profile('lost'),
      cwd: h.cwd(),
      message: 'Answer, slowly.',
      node: nodeId,
    });
    await held.reached;
    expect(treeOf(`${agent.id}-lost`).length).toBeGreaterThan(0);
    // The agent started under the default 2 minutes; the person sets 2 seconds in Settings → Nodes
    // (the same call the page makes), and both ends go by it: the gateway and the node.
    const set = await api().dispatch('prefs:set', { nodes: { agentGraceSeconds: 2 } });
    expect(set).toMatchObject({ ok: true, value: { nodes: { agentGraceSeconds: 2 } } });
    await waitFor(
      () =>
        h.t.logger.lines.some(
          (l) => l.msg === 'nodes: the node took the new grace' && l.fields?.graceMs === 2000,
        ),
      10_000,
      'the node to take the new grace',
    );
    // No new SSH login can come in: the link cannot come back.
    sshd.stop();
    for (const pid of sshClients()) process.kill(pid, 'SIGKILL');
    const dropped = Date.now();
    await h.settle(info.key, 1, 'the run to end without its link');
    expect(gw.runs.list(info.key).at(-1)).toMatchObject({ status: 'failed', error: 'link lost' });
    // Far below the 2 minutes the agent started with: the new setting was read when the link dropped.
    await waitFor(() => treeOf(`${agent.id}-lost`).length === 0, 15_000, 'the node to stop the agent');
    expect(Date.now() - dropped).toBeLessThan(30_000);
    expect(Date.now() - dropped).toBeGreaterThanOrEqual(2_000);
    held.release();
  });
});
