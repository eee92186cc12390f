// Guards on every WebContents and on the session: no navigation away from app://, no new
// windows, no <webview>, no permissions, CSP on every response. The decisions are the pure
// functions below; the wiring functions only attach them (types from Electron, no runtime
// import, so tests drive them with fakes).
import type { Session, WebContents } from 'electron';
import { CONTENT_SECURITY_POLICY, isAllowedExternalUrl, isAppUrl } from './security';

export type OpenExternal = (url: string) => void;

export type NavigationDecision = { allow: true } | { allow: false; openExternally: boolean };

/**
 * In-app navigation (a reload of app://sightline/...) is allowed; anything else is stopped, and
 * an https: link is handed to the person's browser instead.
 */
export function decideNavigation(url: string): NavigationDecision {
  if (isAppUrl(url)) return { allow: true };
  return { allow: false, openExternally: isAllowedExternalUrl(url) };
}

/** window.open / target=_blank: never a new Electron window; https: goes to the browser. */
export function decideWindowOpen(url: string): { action: 'deny'; openExternally: boolean } {
  return { action: 'deny', openExternally: isAllowedExternalUrl(url) };
}

/** Replaces any CSP a response brought along with ours (header names are case-insensitive). */
export function withCspHeader(headers: Record<string, string[]> | undefined): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (name.toLowerCase() !== 'content-security-policy') out[name] = value;
  }
  out['Content-Security-Policy'] = [CONTENT_SECURITY_POLICY];
  return out;
}

const hardened = new WeakSet<object>();

/** Attaches the navigation guards once per WebContents (a second call is a no-op). */
export function hardenWebContents(contents: WebContents, openExternal: OpenExternal): void {
  if (hardened.has(contents)) return;
  hardened.add(contents);
  const onNavigate = (event: { preventDefault(): void }, url: string): void => {
    const decision = decideNavigation(url);
    if (decision.allow) return;
    event.preventDefault();
    if (decision.openExternally) openExternal(url);
  };
  contents.on('will-navigate', (event) => onNavigate(event, event.url));
  contents.on('will-frame-navigate', (event) => onNavigate(event, event.url));
  contents.on('will-redirect', (event) => onNavigate(event, event.url));
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    const decision = decideWindowOpen(url);
    if (decision.openExternally) openExternal(url);
    return { action: decision.action };
  });
}

/** Session-wide: CSP on every response, every permission denied, downloads refused. */
export function hardenSession(ses: Session): void {
  ses.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: withCspHeader(details.responseHeaders) });
  });
  ses.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  ses.setPermissionCheckHandler(() => false);
  ses.setDevicePermissionHandler(() => false);
  ses.on('will-download', (event) => event.preventDefault());
}
