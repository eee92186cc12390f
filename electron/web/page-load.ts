// When to build the fleet snapshot for a page that is loading (api/fleet-snapshot.ts prepares it
// for the page's first request): once the files its HTML links have been sent. Building blocks
// this process for tens of milliseconds with 10,000 sessions; begun with the HTML, it held the
// page's scripts back by as much (issue 31.4), and the page can do nothing before it has them.
// If a file never comes (a request failed, a cache), the build starts after PAGE_FILES_WAIT_MS,
// or when the page's socket opens (it asks at once then).

export const PAGE_FILES_WAIT_MS = 300;

/** The same-origin files an HTML page links: `<script src>` and `<link href>`, as paths. */
export function linkedFiles(html: string): Set<string> {
  const files = new Set<string>();
  for (const m of html.matchAll(/<(?:script|link)\b[^>]*?\s(?:src|href)="([^"]+)"/g)) {
    const url = new URL(m[1]!, 'http://page.invalid/');
    if (url.origin === 'http://page.invalid') files.add(url.pathname);
  }
  return files;
}

export interface PageLoads {
  /** The page's HTML was sent. */
  pageServed(html: string): void;
  /** A file was sent (its path). */
  fileServed(pathname: string): void;
  /** A page opened its socket. */
  socketOpened(): void;
}

export function createPageLoads(prepare: () => void, waitMs = PAGE_FILES_WAIT_MS): PageLoads {
  let waiting: { files: Set<string>; timer: ReturnType<typeof setTimeout> } | undefined;
  const start = () => {
    if (!waiting) return;
    clearTimeout(waiting.timer);
    waiting = undefined;
    prepare();
  };
  return {
    pageServed(html) {
      if (waiting) clearTimeout(waiting.timer);
      const files = linkedFiles(html);
      waiting = { files, timer: setTimeout(start, waitMs) };
      if (files.size === 0) start();
    },
    fileServed(pathname) {
      if (waiting?.files.delete(pathname) && waiting.files.size === 0) start();
    },
    socketOpened: start,
  };
}
