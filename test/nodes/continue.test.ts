// "Continue" into a remote session (issue 19.5) and the person's consent on nodes (issue 14.3):
// a real node process whose PATH holds a stand-in `claude` (a script named like the tool). With
// --allow-continue the CLI runs there, in the folder recorded at adoption, after the person
// allowed it; the text enters the session's recent own texts (its echo is not human activity).
// Without the flag, or without the CLI there, a clear error and nothing runs. A node command the
// person names asks before it first runs; declined, nothing is added.
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { adoptedKeyFor } from '../../shared/session-keys';
import { openTestGateway, tempDir, type TestGateway } from '../helpers/gateway';
import { CLAUDE_ID, claudeUser, relocate, writeClaude } from '../catalog/fixtures';
import { fakeCli, recordingPort } from '../trust/helpers';
import { makeNode, makeRoots, type TestNode } from './helpers';

let t: TestGateway;
let node: TestNode;
afterEach(() => {
  t?.cleanup();
  if (node) fs.rmSync(node.dir, { recursive: true, force: true });
});

/** A gateway with a recording consent port, and a node whose PATH is `bin` (plus node itself). */
async function setup(bin: string, extra: string[]) {
  node = await makeNode(extra);
  t = openTestGateway({ catalogRoots: makeRoots(tempDir('sightline-local-')) });
  const port = recordingPort(true);
  t.gw.consent.plug(port.ask);
  const command = ['/usr/bin/env', `PATH=${bin}`, ...node.command];
  const transcript = relocate(writeClaude(node.roots.claude), bin);
  return { port, command, transcript };
}

const humans = (key: string) =>
  t.gw.state.changesSince(key, 0).events.filter((e) => e.kind === 'human_direct_message');

describe('continue into a remote session', () => {
  it('runs the stand-in CLI on a node started with --allow-continue; the echo is our own text', async () => {
    const cli = fakeCli('claude');
    const { port, command, transcript } = await setup(cli.bin, ['--allow-continue']);
    const info = await t.gw.catalog.nodes.add({ command, name: 'devbox' });
    expect(port.questions.map((q) => q.kind)).toEqual(['node']);
    expect(port.questions[0]?.command).toEqual({ program: '/usr/bin/env', args: command.slice(1) });

    const key = (await t.gw.catalog.adopt({ provider: 'claude', threadId: CLAUDE_ID, hostId: info.id })).key;
    expect(key).toBe(adoptedKeyFor('claude', CLAUDE_ID, info.id));
    await t.gw.catalog.continue(key, 'please   run the tests');
    expect(cli.calls()).toEqual([
      { args: [`--resume=${CLAUDE_ID}`, '-p', 'please   run the tests'], cwd: cli.bin },
    ]);
    expect(port.questions[1]).toMatchObject({
      kind: 'continue',
      title:
        'Continue the Claude Code session "The /invoices endpoint returns 500. Find out why." with its CLI on the node "devbox"',
      command: {
        program: 'claude',
        args: [`--resume=${CLAUDE_ID}`, '-p', 'please   run the tests'],
        cwd: cli.bin,
      },
      sessionKey: key,
    });
    // The text joins Sightline's transcript; with live transcripts the reply comes from the tool's
    // own transcript at the next check, not from the CLI's printed copy.
    expect(t.gw.transcripts.page(key).messages.at(-1)).toMatchObject({
      role: 'user',
      text: 'please   run the tests',
    });

    // The CLI's echo of our text upstream is self-echo; a prompt typed there is one human turn.
    fs.appendFileSync(transcript, claudeUser('please   run the tests'));
    await t.gw.catalog.tick();
    expect(humans(key)).toHaveLength(0);
    fs.appendFileSync(transcript, claudeUser('typed in the terminal on the devbox'));
    await t.gw.catalog.tick();
    expect(humans(key)).toHaveLength(1);

    // The person allowed it once for this session, CLI and folder: the next one does not ask.
    await t.gw.catalog.continue(key, 'and the linter');
    expect(port.questions).toHaveLength(2);
    expect(cli.calls()).toHaveLength(2);
  });

  it('declined by the person: the CLI does not run', async () => {
    const cli = fakeCli('claude');
    const { port, command } = await setup(cli.bin, ['--allow-continue']);
    const info = await t.gw.catalog.nodes.add({ command });
    const key = (await t.gw.catalog.adopt({ provider: 'claude', threadId: CLAUDE_ID, hostId: info.id })).key;
    port.answers.push(false);
    await expect(t.gw.catalog.continue(key, 'hello')).rejects.toThrow('declined by the person');
    expect(cli.calls()).toEqual([]);
  });

  it('without --allow-continue: a clear error, nothing runs', async () => {
    const cli = fakeCli('claude');
    const { command } = await setup(cli.bin, []);
    const info = await t.gw.catalog.nodes.add({ command, name: 'devbox' });
    const key = (await t.gw.catalog.adopt({ provider: 'claude', threadId: CLAUDE_ID, hostId: info.id })).key;
    await expect(t.gw.catalog.continue(key, 'hello')).rejects.toThrow(
      'Cannot continue this session: the node "devbox" was started without --allow-continue, so it only reads sessions there',
    );
    expect(cli.calls()).toEqual([]);
  });

  it('without the CLI on the node: a clear error naming the command', async () => {
    const empty = tempDir('sightline-bin-');
    const { command } = await setup(empty, ['--allow-continue']);
    const info = await t.gw.catalog.nodes.add({ command });
    const key = (await t.gw.catalog.adopt({ provider: 'claude', threadId: CLAUDE_ID, hostId: info.id })).key;
    await expect(t.gw.catalog.continue(key, 'hello')).rejects.toThrow(
      'the "claude" command is not installed (not found on PATH)',
    );
  });
});

describe('a node command the person names', () => {
  it('asks before it first runs; declined, nothing is added and nothing started', async () => {
    const { port, command } = await setup(tempDir('sightline-bin-'), []);
    port.answers.push(false);
    await expect(t.gw.catalog.nodes.add({ command })).rejects.toThrow('declined by the person');
    expect(t.gw.catalog.nodes.list()).toEqual([]);
    expect(fs.existsSync(node.dataDir)).toBe(false);
    // Allowed once, remembered: adding it again after a remove does not ask again.
    const info = await t.gw.catalog.nodes.add({ command });
    t.gw.catalog.nodes.remove(info.id);
    await t.gw.catalog.nodes.add({ command });
    expect(port.questions).toHaveLength(2);
  });
});
