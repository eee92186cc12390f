import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  AcpChild,
  AcpCommandNotFoundError,
  AcpStartError,
  closeAllAcpChildren,
  liveAcpChildCount,
  resolveCommand,
} from '../../electron/gateway/runtime/acp';
import { fixtureProfile, makeWorkspace, probe, startFixture } from './helpers';

const ws = makeWorkspace();
const REPO = fileURLToPath(new URL('../..', import.meta.url));
beforeAll(() => mkdirSync(ws.dir));
afterEach(() => closeAllAcpChildren());
afterAll(() => ws.cleanup());

const quiet = {
  onUpdate: () => undefined,
  onPermission: () => Promise.resolve({ outcome: 'cancelled' as const }),
};

describe('resolveCommand', () => {
  it('finds a bare name on PATH and keeps absolute paths', () => {
    const bin = path.join(ws.root, 'bin');
    mkdirSync(bin);
    writeFileSync(path.join(bin, 'fake-acp-agent'), '#!/bin/sh\n');
    chmodSync(path.join(bin, 'fake-acp-agent'), 0o755);
    const profile = { id: 'p', name: 'P', command: 'fake-acp-agent', args: [], env: { PATH: bin } };
    expect(resolveCommand(profile)).toBe(path.join(bin, 'fake-acp-agent'));
    expect(resolveCommand({ ...profile, command: process.execPath })).toBe(process.execPath);
    expect(resolveCommand({ ...profile, command: './bin/fake-acp-agent' }, ws.root)).toBe(
      path.join(bin, 'fake-acp-agent'),
    );
  });

  it('throws AcpCommandNotFoundError with a readable message', () => {
    const profile = { id: 'p', name: 'P', command: 'no-such-acp-agent-xyz', args: [], env: {} };
    expect(() => resolveCommand(profile)).toThrow(AcpCommandNotFoundError);
    expect(() => resolveCommand(profile)).toThrow('ACP agent command not found: no-such-acp-agent-xyz');
    expect(() => resolveCommand({ ...profile, command: './missing-agent' })).toThrow(
      'ACP agent command not found: ./missing-agent',
    );
  });

  it('makes AcpChild.start reject before spawning anything', async () => {
    const profile = { id: 'p', name: 'P', command: 'no-such-acp-agent-xyz', args: [], env: {} };
    await expect(AcpChild.start({ profile, cwd: ws.dir, ...quiet })).rejects.toThrow(
      'ACP agent command not found: no-such-acp-agent-xyz',
    );
    expect(liveAcpChildCount()).toBe(0);
  });
});

describe('AcpChild start failures', () => {
  it('rejects a working directory that does not exist', async () => {
    const cwd = path.join(ws.root, 'nope');
    await expect(AcpChild.start({ profile: fixtureProfile(), cwd, ...quiet })).rejects.toThrow(
      `ACP working directory does not exist: ${cwd}`,
    );
  });

  it('reports an agent that exits during the handshake', async () => {
    const profile = {
      ...fixtureProfile(),
      args: ['-e', "process.stderr.write('no acp here\\n'); process.exit(5)"],
    };
    const err = await AcpChild.start({ profile, cwd: ws.dir, ...quiet }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AcpStartError);
    expect((err as AcpStartError).message).toBe(
      'ACP agent failed to start: agent process exited with code 5 (stderr: no acp here)',
    );
    expect((err as AcpStartError).stderrTail).toBe('no acp here\n');
  });

  it('reports a session/new error and garbage during the handshake', async () => {
    await expect(startFixture(ws.dir, { env: { ACP_FIXTURE_START: 'fail-session' } })).rejects.toThrow(
      'ACP agent failed to start: agent returned a protocol error: Internal error: no sessions today (code -32603)',
    );
    await expect(startFixture(ws.dir, { env: { ACP_FIXTURE_START: 'garbage' } })).rejects.toThrow(
      'ACP agent failed to start: malformed protocol message from the agent: "not json at startup"',
    );
    expect(liveAcpChildCount()).toBe(0);
  });

  it('gives up on an agent that never answers initialize', async () => {
    const profile = { ...fixtureProfile(), args: ['-e', 'setInterval(() => {}, 1000)'] };
    await expect(AcpChild.start({ profile, cwd: ws.dir, startTimeoutMs: 300, ...quiet })).rejects.toThrow(
      'ACP agent failed to start: no answer to initialize/session/new within 300 ms',
    );
    expect(liveAcpChildCount()).toBe(0);
  });
});

describe('AcpChild process lifetime', () => {
  it('captures stderr and keeps only the last stderrLimitBytes', async () => {
    const { child } = await startFixture(ws.dir, {
      env: { ACP_FIXTURE_STDERR_LINES: '200' },
      stderrLimitBytes: 100,
    });
    const full = Array.from({ length: 200 }, (_, i) => `noise line ${i}\n`).join('');
    await expect.poll(() => child.stderrTail()).toBe(full.slice(-100));
  });

  it('close() kills the process, is idempotent and leaves no process behind', async () => {
    const { child } = await startFixture(ws.dir);
    expect(probe(child.pid)).toBe('alive');
    const first = child.close();
    expect(child.close()).toBe(first);
    await first;
    expect(probe(child.pid)).toBe('ESRCH');
    expect(liveAcpChildCount()).toBe(0);
  });

  it('escalates to SIGKILL when the agent ignores SIGTERM', async () => {
    const { child } = await startFixture(ws.dir, { env: { ACP_FIXTURE_STUBBORN: '1' }, killGraceMs: 200 });
    const started = Date.now();
    await child.close();
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(probe(child.pid)).toBe('ESRCH');
  });

  it('closeAllAcpChildren() stops every live child', async () => {
    const a = await startFixture(ws.dir);
    const b = await startFixture(ws.dir, { env: { ACP_FIXTURE_STUBBORN: '1' }, killGraceMs: 100 });
    const busy = a.child.prompt('hang');
    expect(liveAcpChildCount()).toBe(2);
    await closeAllAcpChildren();
    expect(await busy).toEqual({ outcome: 'error', reason: 'the ACP child was closed' });
    expect([probe(a.child.pid), probe(b.child.pid)]).toEqual(['ESRCH', 'ESRCH']);
    expect(liveAcpChildCount()).toBe(0);
  });

  it("kills children from the process 'exit' hook when the gateway exits without closing them", async () => {
    const script = path.join(REPO, 'test/fixtures/acp-agent/exit-hook.ts');
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', script], {
      cwd: REPO,
    });
    const pid = Number(stdout.trim());
    expect(pid).toBeGreaterThan(0);
    // The orphan is re-parented; where the new parent does not reap, a killed process stays a
    // zombie (state Z), which still answers kill(pid, 0). Either way it no longer runs.
    const state = () => {
      if (probe(pid) === 'ESRCH') return 'gone';
      return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] === 'Z' ? 'gone' : 'running';
    };
    await expect.poll(state).toBe('gone');
  });
});
