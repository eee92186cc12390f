// Issue 14.3: an ACP agent's terminal commands are visible in the session's transcript (command and
// exit code), die with their whole process group, and a profile can ask the person before each one.
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { TerminalManager } from '../../electron/gateway/runtime/acp/terminals';
import { probe } from '../acp/helpers';
import { openTestGateway, tempDir, waitFor, type TestGateway } from '../helpers/gateway';
import { AGENT, recordingPort } from './helpers';
import { MAIN } from '../helpers/spec';

let t: TestGateway | undefined;
const cleanups: (() => void)[] = [];
afterEach(() => {
  t?.cleanup();
  t = undefined;
  for (const c of cleanups.splice(0)) c();
});

describe('the terminal manager', () => {
  it('kills the command with everything it started (its whole process group)', async () => {
    const root = fs.realpathSync(tempDir());
    cleanups.push(() => fs.rmSync(root, { recursive: true, force: true }));
    const terminals = new TerminalManager(root, {});
    cleanups.push(() => terminals.killAll());
    const id = await terminals.create({
      sessionId: 's',
      command: '/bin/sh',
      args: ['-c', 'sleep 300 & echo $!; wait'],
    });
    const pid = Number(await waitFor(() => terminals.output(id).output.trim(), 5000, 'background pid'));
    expect(probe(pid)).toBe('alive');
    terminals.kill(id);
    expect(await terminals.waitForExit(id)).toEqual({ exitCode: null, signal: 'SIGKILL' });
    await waitFor(() => probe(pid) === 'ESRCH', 5000, 'background process gone');
  });

  it('kills what a finished command left running when it is released', async () => {
    const root = fs.realpathSync(tempDir());
    cleanups.push(() => fs.rmSync(root, { recursive: true, force: true }));
    const terminals = new TerminalManager(root, {});
    const id = await terminals.create({
      sessionId: 's',
      command: '/bin/sh',
      args: ['-c', 'sleep 300 >/dev/null 2>&1 & echo $!'],
    });
    expect(await terminals.waitForExit(id)).toEqual({ exitCode: 0, signal: null });
    const pid = Number(terminals.output(id).output.trim());
    expect(probe(pid)).toBe('alive');
    terminals.release(id);
    await waitFor(() => probe(pid) === 'ESRCH', 5000, 'left-over process gone');
  });
});

describe('terminal commands of an ACP child', () => {
  function setup(askTerminal: boolean, otherwise = true) {
    t = openTestGateway();
    const port = recordingPort(otherwise);
    t.gw.consent.plug(port.ask);
    t.gw.acp.profiles.save({
      id: 'fixture',
      name: 'Fixture',
      command: process.execPath,
      args: [AGENT],
      env: {},
      allowAgents: true,
      askTerminal,
    });
    return { gw: t.gw, port };
  }

  async function runTerminalScript(): Promise<{ key: string; reply: string; terminal: string[] }> {
    const gw = t!.gw;
    const r = await gw.tools.call(MAIN, 'sessions_spawn', { task: 'terminal', runtime: 'acp' });
    const key = (r as { details: { childSessionKey: string } }).details.childSessionKey;
    await waitFor(() => gw.runtime.status(key)?.status === 'idle', 15_000, 'terminal run');
    const all = gw.transcripts.all(key);
    return {
      key,
      reply: all
        .filter((m) => m.role === 'assistant')
        .map((m) => m.text)
        .join('\n'),
      terminal: all.filter((m) => m.toolName === 'terminal').map((m) => m.text),
    };
  }

  const pwd = `$ ${process.execPath} -e "process.stdout.write(process.cwd())"`;

  it('shows each command and its exit code in the transcript', async () => {
    const { port } = setup(false);
    const { reply, terminal } = await runTerminalScript();
    expect(reply).toContain('pwd: exit 0');
    expect(terminal).toEqual([
      pwd,
      `${pwd} → exit code 0`,
      `$ ${process.execPath} -e "process.stdout.write('x'.repeat(100) + 'END')"`,
      `$ ${process.execPath} -e "process.stdout.write('x'.repeat(100) + 'END')" → exit code 0`,
    ]);
    expect(port.questions).toEqual([]);
  });

  it('asks the person before every command when the profile says so', async () => {
    const { port } = setup(true, false);
    port.answers.push(true);
    const { key, reply, terminal } = await runTerminalScript();
    expect(reply).toContain('pwd: exit 0');
    expect(reply).toContain('long: error declined by the person');
    expect(terminal).toEqual([
      pwd,
      `${pwd} → exit code 0`,
      `$ ${process.execPath} -e "process.stdout.write('x'.repeat(100) + 'END')" → declined by the person`,
    ]);
    expect(port.questions.map((q) => [q.kind, q.sessionKey, q.command.program, q.command.args])).toEqual([
      ['terminal', key, process.execPath, ['-e', 'process.stdout.write(process.cwd())']],
      ['terminal', key, process.execPath, ['-e', "process.stdout.write('x'.repeat(100) + 'END')"]],
    ]);
  });
});
