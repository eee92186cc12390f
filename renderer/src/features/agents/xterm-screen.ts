// The login terminal's screen: xterm.js with its DOM renderer (no GPU needed), in a chunk of its
// own that loads when a login terminal opens, never at first paint (LoginTerminal imports it
// dynamically). xterm's own CSS comes with that chunk as a file, which the CSP allows.
//
// The app's CSP allows no inline styles (style-src 'self'), and xterm 6's DOM renderer asks for
// them twice: <style> elements (its theme colours, the 256-colour classes, cursor, selection, row
// layout) and a style attribute on cells with 24-bit colours. Both would be refused (colourless
// cells, a CSP error per cell). So: (1) the terminal is opened on an element not yet in the page,
// its <style> elements are taken out before they ever are, and their text (now and whenever xterm
// changes it, e.g. for a theme) goes to constructed stylesheets — CSSOM, which CSP does not govern;
// (2) the cells' colours are set through the CSSOM (`style.cssText`), not the attribute. The
// second reaches one private method of xterm 6.0.0 (pinned exactly); if it is not there, opening
// fails loudly rather than rendering without colours. The e2e checks no CSP violation occurs.
import { FitAddon } from '@xterm/addon-fit';
import { Terminal, type ITheme } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { LOGIN_SIZE } from '../../../../shared/ipc/login-terminals';

export interface XtermScreen {
  readonly cols: number;
  readonly rows: number;
  write(data: string): void;
  /** The size that fits the element now (within LOGIN_SIZE); onResize hears of a change. */
  fit(): void;
  setDark(dark: boolean): void;
  /** No more typing: the command has ended. */
  end(): void;
  focus(): void;
  dispose(): void;
}

// The app's own colours (base.css); ANSI colours readable on each background.
const DARK: ITheme = {
  background: '#0f1216',
  foreground: '#e6e8eb',
  cursor: '#e6e8eb',
  cursorAccent: '#0f1216',
  selectionBackground: 'rgba(91, 143, 249, 0.4)',
};
const LIGHT: ITheme = {
  background: '#ffffff',
  foreground: '#1f2328',
  cursor: '#1f2328',
  cursorAccent: '#ffffff',
  selectionBackground: 'rgba(47, 111, 235, 0.25)',
  black: '#1f2328',
  red: '#cf222e',
  green: '#1a7f37',
  yellow: '#9a6700',
  blue: '#0969da',
  magenta: '#8250df',
  cyan: '#1b7c83',
  white: '#6e7781',
  brightBlack: '#57606a',
  brightRed: '#a40e26',
  brightGreen: '#116329',
  brightYellow: '#7d4e00',
  brightBlue: '#218bff',
  brightMagenta: '#a475f9',
  brightCyan: '#3192aa',
  brightWhite: '#8c959f',
};

/** Takes xterm's <style> elements out of its tree; their text feeds constructed stylesheets. */
function adoptStyles(tree: HTMLElement): () => void {
  const sheets: CSSStyleSheet[] = [];
  for (const el of tree.querySelectorAll('style')) {
    const sheet = new CSSStyleSheet();
    let text = el.textContent ?? '';
    sheet.replaceSync(text);
    sheets.push(sheet);
    el.remove();
    Object.defineProperty(el, 'textContent', {
      configurable: true,
      get: () => text,
      set: (next: string) => {
        text = next;
        sheet.replaceSync(next);
      },
    });
  }
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, ...sheets];
  return () => {
    document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) => !sheets.includes(s));
  };
}

/** Cell colours through the CSSOM instead of the style attribute (see the top of this file). */
function colourCellsByCssom(term: Terminal): void {
  type RowFactory = { _addStyle?: (el: HTMLElement, style: string) => void };
  const internals = term as unknown as {
    _core?: { _renderService?: { _renderer?: { value?: { _rowFactory?: RowFactory } } } };
  };
  const factory = internals._core?._renderService?._renderer?.value?._rowFactory;
  if (typeof factory?._addStyle !== 'function')
    throw new Error('This xterm.js has no DOM row factory to colour cells with: the terminal cannot open');
  factory._addStyle = (el, style) => {
    el.style.cssText += `;${style}`;
  };
}

const clamp = (n: number, { min, max }: { min: number; max: number }) => Math.min(max, Math.max(min, n));

/** Opens a terminal in `mount` (an element with a size; the terminal fills it). */
export function openXtermScreen(
  mount: HTMLElement,
  opts: { dark: boolean; onData(data: string): void; onResize(cols: number, rows: number): void },
): XtermScreen {
  const term = new Terminal({
    fontFamily: "ui-monospace, 'SFMono-Regular', Menlo, Consolas, 'DejaVu Sans Mono', monospace",
    fontSize: 13,
    cursorBlink: true,
    scrollback: 2000,
    theme: opts.dark ? DARK : LIGHT,
    // Links a program marks (OSC 8, e.g. a login URL): https only, in the browser, not this window.
    linkHandler: {
      activate: (_e, uri) => {
        if (/^https:\/\//i.test(uri)) window.open(uri, '_blank', 'noopener,noreferrer');
      },
    },
  });
  const fitter = new FitAddon();
  term.loadAddon(fitter);
  const host = document.createElement('div');
  host.className = 'login-terminal-xterm';
  term.open(host); // outside the page: its <style> elements never enter it
  const unadopt = adoptStyles(host);
  colourCellsByCssom(term);
  mount.appendChild(host);
  // Opened unattached, xterm has not measured its font yet; a same-size resize measures it now.
  term.resize(term.cols, term.rows);
  // Ctrl+C with a selection copies it (the browser's copy, which xterm serves); without, it is ^C.
  term.attachCustomKeyEventHandler(
    (e) => !(e.type === 'keydown' && e.ctrlKey && e.key.toLowerCase() === 'c' && term.hasSelection()),
  );
  term.onData(opts.onData);
  term.onResize(({ cols, rows }) => opts.onResize(cols, rows));
  const fit = () => {
    const want = fitter.proposeDimensions();
    if (!want || !Number.isFinite(want.cols) || !Number.isFinite(want.rows)) return;
    const cols = clamp(want.cols, LOGIN_SIZE.cols);
    const rows = clamp(want.rows, LOGIN_SIZE.rows);
    if (cols !== term.cols || rows !== term.rows) term.resize(cols, rows);
  };
  fit();
  return {
    get cols() {
      return term.cols;
    },
    get rows() {
      return term.rows;
    },
    write: (data) => term.write(data),
    fit,
    setDark: (dark) => {
      term.options.theme = dark ? DARK : LIGHT;
    },
    end: () => {
      term.options.disableStdin = true;
      term.options.cursorBlink = false;
    },
    focus: () => term.focus(),
    dispose: () => {
      term.dispose();
      host.remove();
      unadopt();
    },
  };
}
