// Electron main: app lifecycle and composition. Thin on purpose; every decision lives in a pure
// module next to this one (security, guards, ipc, notify, consent-dialog, native-binding, shutdown)
// or in shared/ (the notification policy).
import { app, dialog, ipcMain, safeStorage, session, shell, type BrowserWindow } from 'electron';
import fs from 'node:fs';
import path from 'node:path';
import { PUSH_CHANNEL } from '../../shared/ipc/channels';
import { waitingFromTitle } from '../../shared/notification-policy';
import type { PushBatch } from '../../shared/ipc/types';
import { createApiHandlers, type ApiHandlers } from '../gateway/api/handlers';
import { createPushBridge, type PushBridge } from '../gateway/api/push-bridge';
import type { Gateway } from '../gateway';
import { startGatewayHost, type GatewayHost } from '../gateway/host';
import { useNativeBinding } from '../gateway/db/sqlite';
import { connectRemoteGateway, inviteFromEnv, remoteTarget, type RemoteTarget } from '../serve/remote';
import { nativeConsent } from './consent-dialog';
import { hardenSession, hardenWebContents } from './guards';
import { registerIpcHandlers } from './ipc';
import { chooseNativeBinding, mcpShimPath } from './native-binding';
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
let host: GatewayHost | undefined;
let api: ApiHandlers | undefined;
let pushBridge: PushBridge | undefined;
/** `--connect`: a gateway a team shares answers instead of a local one (no local database). */
let remote: { close(): void; unsubscribe(): void } | undefined;
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
    ['remote', () => (remote?.unsubscribe(), remote?.close())],
    ['ipc', () => removeIpcHandlers?.()],
    ['gateway', () => host?.close()],
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

/** The New session dialog's folder picker: a native dialog raised by the main process. */
async function pickFolder(): Promise<string | undefined> {
  const options: Electron.OpenDialogOptions = { properties: ['openDirectory', 'createDirectory'] };
  const r = mainWindow
    ? await dialog.showOpenDialog(mainWindow, options)
    : await dialog.showOpenDialog(options);
  return r.canceled ? undefined : r.filePaths[0];
}

function configureNativeBinding(): void {
  const runtime = { abi: process.versions.modules, platform: process.platform, arch: process.arch };
  const choice = chooseNativeBinding(app, process.env, runtime, fs.existsSync);
  if (choice.warning) console.warn(`[sightline] ${choice.warning}`);
  useNativeBinding(choice.path);
}

/** (Re)binds the transports to `gw`: at start-up, and after a restore swapped the gateway. */
function bindGateway(gw: Gateway, dataDir: string): void {
  pushBridge?.close();
  notifier?.close();
  // Consent is asked with a native dialog the page cannot answer.
  gw.consent.plug(nativeConsent(dialog, () => (mainWindow?.isDestroyed() ? undefined : mainWindow)));
  api = createApiHandlers(gw, {
    app: { name: 'Sightline', version: app.getVersion(), mode: 'electron', dataDir },
    pickFolder,
    ...(host ? { database: host } : {}),
  });
  pushBridge = createPushBridge(gw.events, (batch) => {
    if (mainWindow && !mainWindow.isDestroyed()) mainWindow.webContents.send(PUSH_CHANNEL, batch);
  });
  const preferences = gw.person.preferences;
  notifier = startNativeNotifications(
    gw.events,
    {
      prefs: () => preferences.get().notifications,
      viewing: () => api?.viewing(),
      label: (key) => gw.sessions.get(key)?.label || key,
    },
    (sessionKey) => {
      focusWindow(mainWindow);
      const open: PushBatch = { events: [{ type: 'ui:open', sessionKey }] };
      if (mainWindow && !mainWindow.isDestroyed()) mainWindow.webContents.send(PUSH_CHANNEL, open);
    },
  );
}

function startGateway(): void {
  configureNativeBinding();
  const dataDir = app.getPath('userData');
  // A damaged database is moved aside here (the renderer shows the notice with the paths).
  // Secrets are sealed with the system keyring (safeStorage).
  // out/node/sightline-node.mjs: the node file installed on machines added over SSH.
  const nodes = { bundle: path.join(__dirname, '..', 'node', 'sightline-node.mjs') };
  host = startGatewayHost(
    { dataDir, secrets: { safeStorage }, mcpShim: { script: mcpShimPath(app.getAppPath()) }, nodes },
    { onSwap: (next) => bindGateway(next, dataDir) },
  );
  const notice = host.notice();
  if (notice) console.error(`[sightline] database ${notice.kind}: ${notice.path}`, notice);
  bindGateway(host.gateway, dataDir);
  removeIpcHandlers = registerIpcHandlers(ipcMain, {
    dispatch: (channel, args) => api!.dispatch(channel, args),
    isTrustedSender: (event) => isTrustedSender(event, trustedContents),
    onProblem: (channel, error) =>
      console.warn(`[sightline] ipc ${channel}: ${error.code}: ${error.message}`),
  });
}

/** The desktop app on a shared gateway: the same client and credential store as browser mode. */
async function startRemote(target: RemoteTarget): Promise<void> {
  const r = await connectRemoteGateway({
    ...target,
    dataDir: app.getPath('userData'),
    ...(inviteFromEnv() ? { invite: inviteFromEnv()! } : {}),
    onEnd: (reason) => {
      if (reason === 'closed') return; // our own shutdown
      dialog.showErrorBox('Sightline: the gateway ended this connection', reason);
      app.quit();
    },
  });
  const unsubscribe = r.subscribe((batch) => {
    if (mainWindow && !mainWindow.isDestroyed()) mainWindow.webContents.send(PUSH_CHANNEL, batch);
  });
  remote = { close: r.close, unsubscribe };
  console.log(`[sightline] connected to ${target.url} as ${r.account.id}`);
  removeIpcHandlers = registerIpcHandlers(ipcMain, {
    dispatch: r.dispatch,
    isTrustedSender: (event) => isTrustedSender(event, trustedContents),
    onProblem: (channel, error) =>
      console.warn(`[sightline] ipc ${channel}: ${error.code}: ${error.message}`),
  });
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
    .then(async () => {
      hardenSession(session.defaultSession);
      serveRenderer(RENDERER_ROOT);
      const target = remoteTarget(process.argv, process.env);
      if (target) await startRemote(target);
      else startGateway();
      openWindow();
    })
    .catch((err: unknown) => {
      console.error('[sightline] start-up failed:', err);
      // Never an exit without a word: the person sees why (a newer database, a missing addon…).
      dialog.showErrorBox('Sightline could not start', err instanceof Error ? err.message : String(err));
      shutdown.run();
      app.exit(1);
    });
}

main();
