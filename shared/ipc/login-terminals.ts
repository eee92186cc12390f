// Login terminals (issue 28.5): an agent's own login command (its terminal auth method), run by
// the gateway under a real pseudo-terminal after the person allowed it, shown live in the page,
// which sends the person's keystrokes back as a terminal sends them (escape sequences and control
// characters included). What crosses the IPC boundary about one.

/** One login terminal: the exact command line the person allowed, and where it ran. */
export interface LoginTerminalView {
  id: string;
  sessionKey: string;
  methodId: string;
  /** The agent's login command, one argument per element (never a shell string). */
  command: string[];
  cwd: string;
  /** The output so far (the last `LOGIN_OUTPUT_KEPT` characters), for a panel opened late. */
  output: string;
  /**
   * How many characters the command has printed in all: `output` ends at this offset, and each
   * pushed chunk says where it starts (`at`), so a panel shows each character once, in order,
   * and catches up (from `output`) after pushes it missed.
   */
  end: number;
  /** The terminal's size in character cells. */
  cols: number;
  rows: number;
  /** Set once the login process ended. */
  exitCode?: number | null;
  signal?: string | null;
}

/** Output kept per terminal: the newest characters win. */
export const LOGIN_OUTPUT_KEPT = 64 * 1024;
/** The most characters one `acp:login:input` call may send. */
export const LOGIN_INPUT_MAX = 4096;
/** The sizes a login terminal may have (character cells), and the size when the page gives none. */
export const LOGIN_SIZE = {
  cols: { min: 20, max: 500, default: 80 },
  rows: { min: 5, max: 200, default: 24 },
} as const;

export const LOGIN_TERMINAL_CHANNELS = {
  acpLoginStart: 'acp:login:start',
  acpLoginGet: 'acp:login:get',
  acpLoginInput: 'acp:login:input',
  acpLoginResize: 'acp:login:resize',
  acpLoginClose: 'acp:login:close',
} as const;

export interface LoginTerminalResults {
  'acp:login:start': LoginTerminalView;
  'acp:login:get': LoginTerminalView;
  'acp:login:input': { sent: true };
  'acp:login:resize': { resized: true };
  'acp:login:close': { closed: true };
}

/** Pushed: new output of a login terminal (`at`: the offset of its first character), and its end. */
export type LoginTerminalEvent =
  | { type: 'login:output'; id: string; sessionKey: string; at: number; data: string }
  | { type: 'login:exit'; id: string; sessionKey: string; exitCode: number | null; signal: string | null };
