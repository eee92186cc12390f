// Electron's consent port: a native dialog from the main process (Electron's dialog injected).
import { describe, expect, it } from 'vitest';
import type { ConsentQuestion } from '../../electron/gateway';
import {
  consentDialogOptions,
  nativeConsent,
  type DialogLike,
  type MessageBoxOptionsLike,
} from '../../electron/main/consent-dialog';
import { openTestGateway } from '../helpers/gateway';

const QUESTION: ConsentQuestion = {
  id: 'consent-1',
  kind: 'acp-profile',
  title: 'Run the ACP agent "Claude Code"',
  command: {
    program: '/usr/local/bin/claude-code-acp',
    args: ['--model', 'opus 4', ''],
    cwd: '/home/ana/src',
    env: { ANTHROPIC_API_KEY: 'sk-ant-0123456789abcdef', NODE_OPTIONS: '--require ./hook.js' },
  },
  allowAgents: true,
  createdAt: 1,
};

function fakeDialog(responses: number[]) {
  const shown: { window: string | undefined; options: MessageBoxOptionsLike }[] = [];
  const waiting: (() => void)[] = [];
  const dialog: DialogLike<string> = {
    showMessageBox(a: string | MessageBoxOptionsLike, b?: MessageBoxOptionsLike) {
      const [window, options] = typeof a === 'string' ? [a, b!] : [undefined, a];
      shown.push({ window, options });
      return new Promise((resolve) => waiting.push(() => resolve({ response: responses.shift() ?? 0 })));
    },
  };
  return { dialog, shown, answerNext: () => waiting.shift()?.() };
}

describe('the native consent dialog', () => {
  it('shows the exact program, each argument, the folder and the environment (secret values masked)', () => {
    expect(consentDialogOptions(QUESTION)).toEqual({
      type: 'warning',
      title: 'Sightline: allow a program to run?',
      message: 'Run the ACP agent "Claude Code"?',
      detail: [
        'Program: /usr/local/bin/claude-code-acp',
        'Arguments:\n  "--model"\n  "opus 4"\n  ""',
        'Folder: /home/ana/src',
        'Environment added:\n  ANTHROPIC_API_KEY=••••cdef\n  NODE_OPTIONS=--require ./hook.js',
        'Agents may start it: yes',
        '',
        'It runs as your user account, with your files and network.',
      ].join('\n'),
      buttons: ["Don't run", 'Allow'],
      defaultId: 0,
      cancelId: 0,
      noLink: true,
    });
  });

  it('shows hidden characters as what they are: no reversed names, no forged lines (issue 29.7)', () => {
    const { detail, message } = consentDialogOptions({
      ...QUESTION,
      title: 'Run the ACP agent "invoice\u202Etxt.exe"',
      command: {
        program: '/usr/bin/\u202Etxt.exe',
        args: ['a\u2066b'],
        cwd: '/home/ana/src\nFolder: /home/ana/safe',
        env: { NOTE: 'x\u200By' },
      },
    });
    expect(message).toBe('Run the ACP agent "invoice\\u202Etxt.exe"?');
    expect(detail).toContain('Program: /usr/bin/\\u202Etxt.exe');
    expect(detail).toContain('  "a\\u2066b"');
    expect(detail).toContain('Folder: /home/ana/src⏎Folder: /home/ana/safe');
    expect(detail.split('\n').filter((l) => l.startsWith('Folder:'))).toHaveLength(1);
    expect(detail).toContain('  NOTE=x\\u200By');
    expect(detail).not.toMatch(/[\u200b\u202e\u2066]/);
  });

  it('answers yes only for the Allow button, one dialog at a time, on the main window', async () => {
    const fake = fakeDialog([1, 0]);
    const ask = nativeConsent(fake.dialog, () => 'main-window');
    const first = ask(QUESTION);
    const second = ask({ ...QUESTION, id: 'consent-2', kind: 'terminal' });
    await new Promise((r) => setImmediate(r));
    expect(fake.shown).toHaveLength(1);
    fake.answerNext();
    expect(await first).toBe(true);
    await new Promise((r) => setImmediate(r));
    expect(fake.shown).toHaveLength(2);
    expect(fake.shown[1]).toMatchObject({
      window: 'main-window',
      options: { buttons: ["Don't run", 'Run'] },
    });
    fake.answerNext();
    expect(await second).toBe(false);
  });

  it('plugged into a gateway, it decides; the page has nothing it could answer', async () => {
    const t = openTestGateway();
    try {
      const fake = fakeDialog([0]);
      t.gw.consent.plug(nativeConsent(fake.dialog, () => undefined));
      const saving = t.gw.acp.profiles.propose({
        id: 'x',
        name: 'X',
        command: '/bin/true',
        args: [],
        env: {},
      });
      await new Promise((r) => setImmediate(r));
      expect(fake.shown[0]).toMatchObject({
        window: undefined,
        options: { message: 'Run the ACP agent "X" (its terminal commands run without asking you)?' },
      });
      expect(t.gw.consent.pending()).toEqual([]);
      fake.answerNext();
      await expect(saving).rejects.toThrow('declined by the person');
      expect(t.gw.acp.profiles.list()).toEqual([]);
    } finally {
      t.cleanup();
    }
  });
});
