import { describe, expect, it } from 'vitest';
import { decideNavigation, decideWindowOpen, withCspHeader } from '../../electron/main/guards';
import {
  APP_ENTRY_URL,
  APP_ORIGIN,
  appPathname,
  CONTENT_SECURITY_POLICY,
  isAllowedExternalUrl,
  isAppUrl,
  isTrustedSender,
  secureWebPreferences,
} from '../../electron/main/security';

describe('secureWebPreferences', () => {
  it('is exactly the hardened set, with the preload as the only variable part', () => {
    expect(secureWebPreferences('/app/out/preload/preload.cjs')).toEqual({
      preload: '/app/out/preload/preload.cjs',
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
    });
  });
});

describe('Content-Security-Policy', () => {
  it('is the exact strict policy', () => {
    expect(CONTENT_SECURITY_POLICY).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; " +
        "connect-src 'self'; worker-src 'self'; object-src 'none'; frame-src 'none'; base-uri 'none'; " +
        "form-action 'none'; frame-ancestors 'none'",
    );
  });

  it('has no unsafe keyword, no remote origin and no wildcard', () => {
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-eval|unsafe-inline|wasm-unsafe-eval|unsafe-hashes/);
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/https?:|wss?:|\*|blob:|filesystem:/);
    expect(CONTENT_SECURITY_POLICY.startsWith("default-src 'self';")).toBe(true);
  });

  it('replaces whatever CSP a response carried, in any letter case, keeping other headers', () => {
    expect(
      withCspHeader({
        'content-security-policy': ["default-src *; script-src 'unsafe-eval'"],
        'Content-Type': ['text/html'],
      }),
    ).toEqual({ 'Content-Type': ['text/html'], 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] });
    expect(withCspHeader(undefined)).toEqual({ 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] });
  });
});

describe('isAllowedExternalUrl', () => {
  it.each([
    ['https://example.com', true],
    ['https://docs.example.com/path?q=1#frag', true],
    ['HTTPS://EXAMPLE.COM/', true],
    ['http://example.com', false],
    ['javascript:alert(1)', false],
    ['JaVaScRiPt:alert(1)', false],
    ['file:///etc/passwd', false],
    ['data:text/html,<script>alert(1)</script>', false],
    ['app://sightline/index.html', false],
    ['mailto:someone@example.com', false],
    ['smb://host/share', false],
    ['https://user:pass@example.com', false],
    ['https://', false],
    ['not a url', false],
    ['//example.com', false],
    ['', false],
  ])('%s → %s', (url, expected) => {
    expect(isAllowedExternalUrl(url)).toBe(expected);
  });

  it('rejects non-strings and absurdly long input', () => {
    expect(isAllowedExternalUrl(undefined)).toBe(false);
    expect(isAllowedExternalUrl(42)).toBe(false);
    expect(isAllowedExternalUrl({ href: 'https://example.com' })).toBe(false);
    expect(isAllowedExternalUrl(`https://example.com/${'a'.repeat(5000)}`)).toBe(false);
  });
});

describe('navigation and window.open', () => {
  it('allows in-app navigation only', () => {
    expect(APP_ENTRY_URL).toBe('app://sightline/index.html');
    expect(decideNavigation('app://sightline/index.html')).toEqual({ allow: true });
    expect(decideNavigation('app://evil/index.html')).toEqual({ allow: false, openExternally: false });
    expect(decideNavigation('https://example.com/')).toEqual({ allow: false, openExternally: true });
    expect(decideNavigation('http://example.com/')).toEqual({ allow: false, openExternally: false });
    expect(decideNavigation('file:///etc/passwd')).toEqual({ allow: false, openExternally: false });
  });

  it('always denies new windows, handing https links to the browser', () => {
    expect(decideWindowOpen('https://example.com')).toEqual({ action: 'deny', openExternally: true });
    expect(decideWindowOpen('app://sightline/index.html')).toEqual({ action: 'deny', openExternally: false });
    expect(decideWindowOpen('javascript:alert(1)')).toEqual({ action: 'deny', openExternally: false });
  });
});

describe('appPathname', () => {
  it('gives the still-encoded path of app://sightline URLs (the renderer-files guard decodes it)', () => {
    expect(appPathname('app://sightline/')).toBe('/');
    expect(appPathname('app://sightline/assets/app.js?v=1#x')).toBe('/assets/app.js');
    expect(appPathname('app://sightline/..%2fsecret.txt')).toBe('/..%2fsecret.txt');
    // The URL parser folds literal dot segments before the guard sees the path.
    expect(appPathname('app://sightline/../secret.txt')).toBe('/secret.txt');
  });

  it.each(['app://other/index.html', 'https://sightline/index.html', 'file:///etc/passwd', 'not a url', 7])(
    'is undefined for %s',
    (url) => expect(appPathname(url)).toBeUndefined(),
  );
});

describe('isTrustedSender', () => {
  const trusted = new Set([7]);
  const event = (id: number, url: string | null, parent: unknown = null) => ({
    sender: { id },
    senderFrame: url === null ? null : { url, parent },
  });

  it('accepts the top frame of our window on the app origin', () => {
    expect(APP_ORIGIN).toBe('app://sightline');
    expect(isAppUrl('app://sightline/')).toBe(true);
    expect(isTrustedSender(event(7, 'app://sightline/index.html'), trusted)).toBe(true);
    expect(isTrustedSender(event(7, 'app://sightline/index.html#/inbox'), trusted)).toBe(true);
  });

  it('refuses other windows, other origins, subframes and destroyed frames', () => {
    expect(isTrustedSender(event(8, 'app://sightline/index.html'), trusted)).toBe(false);
    expect(isTrustedSender(event(7, 'https://sightline/index.html'), trusted)).toBe(false);
    expect(isTrustedSender(event(7, 'app://sightline.evil/index.html'), trusted)).toBe(false);
    expect(isTrustedSender(event(7, 'file:///out/renderer/index.html'), trusted)).toBe(false);
    expect(isTrustedSender(event(7, 'about:blank'), trusted)).toBe(false);
    expect(
      isTrustedSender(event(7, 'app://sightline/index.html', { url: 'app://sightline/' }), trusted),
    ).toBe(false);
    expect(isTrustedSender(event(7, null), trusted)).toBe(false);
  });
});
