/**
 * Every live ACP child of this process. The gateway closes them all on shutdown; the 'exit' hook
 * is the last line of defence when it does not (an uncaught exception, process.exit elsewhere):
 * 'exit' handlers must be synchronous, so they only get a SIGKILL.
 */
export interface LiveAcpChild {
  close(): Promise<void>;
  killNow(): void;
}

const live = new Set<LiveAcpChild>();
let exitHookInstalled = false;

function killAllNow(): void {
  for (const child of live) {
    try {
      child.killNow();
    } catch {
      // The process is going away anyway; one failed kill must not skip the others.
    }
  }
}

export function registerAcpChild(child: LiveAcpChild): void {
  live.add(child);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', killAllNow);
  }
}

export function unregisterAcpChild(child: LiveAcpChild): void {
  live.delete(child);
}

export function liveAcpChildCount(): number {
  return live.size;
}

/** Closes every live ACP child (SIGTERM, then SIGKILL after the grace) and waits for them. */
export async function closeAllAcpChildren(): Promise<void> {
  await Promise.all([...live].map((child) => child.close()));
}
