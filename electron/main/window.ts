// The ONE place that creates a BrowserWindow (a test reads electron/main and enforces it). Every
// window gets the secure webPreferences; the guards are attached to every WebContents by the
// app-wide 'web-contents-created' hook in index.ts, and once more here in case that hook is
// ever removed (hardenWebContents is idempotent).
import { BrowserWindow } from 'electron';
import { hardenWebContents, type OpenExternal } from './guards';
import { APP_ENTRY_URL, secureWebPreferences } from './security';

export interface MainWindowOptions {
  preloadPath: string;
  devTools: boolean;
  openExternal: OpenExternal;
}

export function createMainWindow(opts: MainWindowOptions): BrowserWindow {
  const win = new BrowserWindow({
    width: 1400,
    height: 900,
    minWidth: 900,
    minHeight: 600,
    show: false,
    title: 'Sightline',
    backgroundColor: '#14161a',
    // The three decisive flags are repeated literally so static checkers (electronegativity in
    // CI) see them here; secureWebPreferences() holds the full set and tests pin it.
    webPreferences: {
      ...secureWebPreferences(opts.preloadPath),
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
      devTools: opts.devTools,
    },
  });
  hardenWebContents(win.webContents, opts.openExternal);
  win.once('ready-to-show', () => win.show());
  void win.loadURL(APP_ENTRY_URL);
  return win;
}

/** Brings the window to the front (second instance, notification click). */
export function focusWindow(win: BrowserWindow | undefined): void {
  if (!win || win.isDestroyed()) return;
  if (win.isMinimized()) win.restore();
  if (!win.isVisible()) win.show();
  win.focus();
}
