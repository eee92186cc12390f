// Electron's port for the gateway's consent: a native dialog raised by the main process, showing
// the exact program, arguments, folder and environment. The page cannot answer it for itself (it
// is not a DOM element and no IPC channel resolves it). Pure: the dialog is passed in, so tests
// use a fake; one question at a time, in the order they were asked.
import { visible } from '../../shared/visible';
import type { AskPerson, ConsentQuestion } from '../gateway';

export interface MessageBoxOptionsLike {
  type: 'warning';
  title: string;
  message: string;
  detail: string;
  buttons: string[];
  defaultId: number;
  cancelId: number;
  noLink: boolean;
}

/** The part of Electron's `dialog` used here (the window is Electron's BrowserWindow). */
export interface DialogLike<W> {
  showMessageBox(window: W, options: MessageBoxOptionsLike): Promise<{ response: number }>;
  showMessageBox(options: MessageBoxOptionsLike): Promise<{ response: number }>;
}

const SECRET_NAME = /key|token|secret|pass|auth|credential|cookie/i;
const RUN = 1;

/** Values of variables that look like secrets are shown by their last 4 characters only. */
function envLine(name: string, value: string): string {
  const shown = SECRET_NAME.test(name) ? `••••${value.length >= 12 ? value.slice(-4) : ''}` : value;
  return `  ${visible(name)}=${visible(shown)}`;
}

/**
 * Every text from outside (a profile, a recorded folder, an agent's title) is shown with its
 * control and bidi-override characters visible (shared/visible.ts): a newline in a folder cannot
 * forge a second "Folder:" line, U+202E cannot turn `txt.exe` into `exe.txt`.
 */
export function consentDialogOptions(q: ConsentQuestion): MessageBoxOptionsLike {
  const c = q.command;
  const env = Object.entries(c.env ?? {});
  const lines = [
    `Program: ${visible(c.program)}`,
    c.args.length
      ? `Arguments:\n${c.args.map((a) => `  ${visible(JSON.stringify(a))}`).join('\n')}`
      : 'Arguments: none',
    ...(c.cwd ? [`Folder: ${visible(c.cwd)}`] : []),
    ...(env.length ? [`Environment added:\n${env.map(([k, v]) => envLine(k, v)).join('\n')}`] : []),
    ...(q.sessionKey ? [`Session: ${visible(q.sessionKey)}`] : []),
    ...(q.allowAgents !== undefined ? [`Agents may start it: ${q.allowAgents ? 'yes' : 'no'}`] : []),
    '',
    'It runs as your user account, with your files and network.',
  ];
  return {
    type: 'warning',
    title: q.kind === 'credential' ? 'Sightline: allow wider access?' : 'Sightline: allow a program to run?',
    message: `${visible(q.title)}?`,
    detail: lines.join('\n'),
    buttons: ["Don't run", q.kind === 'acp-profile' || q.kind === 'credential' ? 'Allow' : 'Run'],
    defaultId: 0,
    cancelId: 0,
    noLink: true,
  };
}

export function nativeConsent<W>(dialog: DialogLike<W>, window: () => W | undefined): AskPerson {
  let queue: Promise<unknown> = Promise.resolve();
  return (question) => {
    const asked = queue.then(async () => {
      const options = consentDialogOptions(question);
      const win = window();
      const { response } = win
        ? await dialog.showMessageBox(win, options)
        : await dialog.showMessageBox(options);
      return response === RUN;
    });
    queue = asked.catch(() => undefined);
    return asked;
  };
}
