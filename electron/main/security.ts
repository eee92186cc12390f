// The security decisions of the shell as pure values and functions, so tests can pin them under
// plain Node. This file must never import 'electron' at runtime (type imports only).
import type { WebPreferences } from 'electron';

/** The renderer is served from `app://sightline/`, never from file: or http:. */
export const APP_SCHEME = 'app';
export const APP_HOST = 'sightline';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
export const APP_ENTRY_URL = `${APP_ORIGIN}/index.html`;

/**
 * The one Content-Security-Policy of the renderer: only our own origin may supply scripts,
 * styles and data; no eval, no inline script, no remote origin, no plugins, no framing.
 * Inline `style` attributes are not needed: React sets styles through CSSOM, which CSP does
 * not govern. `img-src data:` allows inlined icons that Vite emits for small assets.
 */
export const CSP_DIRECTIVES: ReadonlyArray<readonly [string, string]> = [
  ['default-src', "'self'"],
  ['script-src', "'self'"],
  ['style-src', "'self'"],
  ['img-src', "'self' data:"],
  ['font-src', "'self'"],
  ['connect-src', "'self'"],
  ['worker-src', "'self'"],
  ['object-src', "'none'"],
  ['frame-src', "'none'"],
  ['base-uri', "'none'"],
  ['form-action', "'none'"],
  ['frame-ancestors', "'none'"],
];

export const CONTENT_SECURITY_POLICY = CSP_DIRECTIVES.map(([name, value]) => `${name} ${value}`).join('; ');

/**
 * The webPreferences of every window. `preload` is the only variable part. Each flag is set
 * explicitly even where Electron's default already matches, so a future default change or a
 * careless edit shows up in the test.
 */
export function secureWebPreferences(preloadPath: string): WebPreferences {
  return {
    preload: preloadPath,
    sandbox: true,
    contextIsolation: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webviewTag: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    experimentalFeatures: false,
    navigateOnDragDrop: false,
    spellcheck: false,
    safeDialogs: true,
  };
}

/** Parses a URL without throwing; undefined when malformed. */
export function parseUrl(raw: unknown): URL | undefined {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > 4096) return undefined;
  try {
    return new URL(raw);
  } catch {
    return undefined;
  }
}

/**
 * Links the page may open in the person's browser: parsed `https:` URLs with a host and no
 * credentials. Everything else (javascript:, file:, http:, custom schemes, malformed) is denied.
 */
export function isAllowedExternalUrl(raw: unknown): boolean {
  const url = parseUrl(raw);
  if (!url) return false;
  if (url.protocol !== 'https:') return false;
  if (url.hostname.length === 0) return false;
  if (url.username !== '' || url.password !== '') return false;
  return true;
}

/** True for URLs of our own renderer (`app://sightline/...`). */
export function isAppUrl(raw: unknown): boolean {
  return appPathname(raw) !== undefined;
}

/** The path of an `app://sightline/...` URL (still percent-encoded); undefined for any other URL. */
export function appPathname(raw: unknown): string | undefined {
  const url = parseUrl(raw);
  return url && url.protocol === `${APP_SCHEME}:` && url.host === APP_HOST ? url.pathname : undefined;
}

/** The parts of an IPC event the sender check reads (Electron's IpcMainInvokeEvent fits). */
export interface SenderEventLike {
  sender: { id: number };
  senderFrame: { url: string; parent: unknown } | null;
}

/**
 * An IPC message is trusted only when it comes from the top frame of one of our windows and
 * that frame currently shows our app:// origin. A frame that navigated away (it cannot, but
 * defence in depth) or an iframe is refused.
 */
export function isTrustedSender(event: SenderEventLike, trustedWebContentsIds: ReadonlySet<number>): boolean {
  if (!trustedWebContentsIds.has(event.sender.id)) return false;
  const frame = event.senderFrame;
  if (!frame) return false;
  if (frame.parent !== null) return false;
  return isAppUrl(frame.url);
}
