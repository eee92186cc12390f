// Electron main: app lifecycle and composition. Thin on purpose; every decision lives in a pure
// module next to this one (security, guards, ipc, native-binding, shutdown) or in shared/
// (the notification policy).
import { app, ipcMain, session, shell, type BrowserWindow } from 'electron';
import fs from 'node:fs';
import path from 'node:path';
import { PUSH_CHANNEL } from '../../shared/ipc/channels';
import { createDismissalStore } from '../gateway/api/dismissals';
import { createPreferenceStore } from '../gateway/api/preferences';
import { waitingFromTitle } from '../../shared/notification-policy';
import type { PushBatch } from '../../shared/ipc/types';
import { createApiHandlers } from '../gateway/api/handlers';
import { createPushBridge, type PushBridge } from '../gateway/api/push-bridge';
import { createGateway, type Gateway } from '../gateway';
import { useNativeBinding } from '../gateway/db/sqlite';
import { hardenSession, hardenWebContents } from './guards';
import { registerIpcHandlers } from './ipc';
import { chooseNativeBinding } from './native-binding';
import { startNativeNotifications, type NativeNotifier } from './notify';
import { registerAppScheme, serveRenderer } from './protocol';
import { isAllowedExternalUrl, isTrustedSender } from './security';
import { createShutdown } from './shutdown';
import { createMainWindow, focusWindow } from './window';

const APP_USER_MODEL_ID = 'app.sightline.desktop';
// __dirname is out/main once bundled (scripts/build-electron.mjs).
const PRELOAD_PATH = path.join(__dirname, '..', 'preload', 'preload.cjs');
const RENDERER_ROOT = path.join(__dirname, '..', 'renderer');

let mainWindow: BrowserWindow | undefined;
let gateway: Gateway | undefined;
let pushBridge: PushBridge | undefined;
let notifier: NativeNotifier | undefined;
let removeIpcHandlers: (() => void) | undefined;
const trustedContents = new Set<number>();

const openExternal = (url: string): void => {
  // Checked again here: this is the only call of shell.openExternal in the app.
  if (isAllowedExternalUrl(url)) void shell.openExternal(url);
};

const shutdown = createShutdown(
  [
    ['notifications', () => notifier?.close()],
    ['push', () => pushBridge?.close()],
    ['ipc', () => removeIpcHandlers?.()],
    ['gateway', () => gateway?.close()],
  ],
  (name, err) => console.error(`[sightline] shutdown step ${name} failed:`, err),
);

function openWindow(): void {
  const win = createMainWindow({ preloadPath: PRELOAD_PATH, devTools: !app.isPackaged, openExternal });
  const id = win.webContents.id;
  trustedContents.add(id);
  // The page's title counts what waits for the person; the dock/taskbar badge shows the same.
  win.on('page-title-updated', (_event, title) => app.setBadgeCount(waitingFromTitle(title)));
  win.on('closed', () => {
    trustedContents.delete(id);
    if (mainWindow === win) mainWindow = undefined;
  });
  mainWindow = win;
}

function configureNativeBinding(): void {
  const runtime = { abi: process.versions.modules, platform: process.platform, arch: process.arch };
  const choice = chooseNativeBinding(app, process.env, runtime, fs.existsSync);
  if (choice.warning) console.warn(`[sightline] ${choice.warning}`);
  useNativeBinding(choice.path);
}

function startGateway(): void {
  configureNativeBinding();
  const dataDir = app.getPath('userData');
  const gw = createGateway({ dataDir });
  gateway = gw;
  const api = createApiHandlers(gw, {
    app: { name: 'Sightline', version: app.getVersion(), mode: 'electron', dataDir },
    dismissals: createDismissalStore(gw.db),
  });
  removeIpcHandlers = registerIpcHandlers(ipcMain, {
    dispatch: api.dispatch,
    isTrustedSender: (event) => isTrustedSender(event, trustedContents),
    onProblem: (channel, error) =>
      console.warn(`[sightline] ipc ${channel}: ${error.code}: ${error.message}`),
  });
  pushBridge = createPushBridge(gw.events, (batch) => {
    if (mainWindow && !mainWindow.isDestroyed()) mainWindow.webContents.send(PUSH_CHANNEL, batch);
  });
  const preferences = createPreferenceStore(gw.db);
  notifier = startNativeNotifications(
    gw.events,
    {
      prefs: () => preferences.get().notifications,
      viewing: () => api.viewing(),
      label: (key) => gw.sessions.get(key)?.label || key,
    },
    (sessionKey) => {
      focusWindow(mainWindow);
      const open: PushBatch = { events: [{ type: 'ui:open', sessionKey }] };
      if (mainWindow && !mainWindow.isDestroyed()) mainWindow.webContents.send(PUSH_CHANNEL, open);
    },
  );
}

function main(): void {
  // Before anything else: a second launch only focuses the first one.
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return;
  }
  registerAppScheme();
  if (process.platform === 'win32') app.setAppUserModelId(APP_USER_MODEL_ID);

  app.on('second-instance', () => focusWindow(mainWindow));
  app.on('web-contents-created', (_event, contents) => hardenWebContents(contents, openExternal));
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  app.on('activate', () => {
    if (app.isReady() && !mainWindow) openWindow();
  });
  app.on('before-quit', () => shutdown.run());
  app.on('will-quit', () => shutdown.run());

  app
    .whenReady()
    .then(() => {
      hardenSession(session.defaultSession);
      serveRenderer(RENDERER_ROOT);
      startGateway();
      openWindow();
    })
    .catch((err: unknown) => {
      console.error('[sightline] start-up failed:', err);
      shutdown.run();
      app.exit(1);
    });
}

main();
