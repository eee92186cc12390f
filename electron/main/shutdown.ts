// Graceful shutdown: before-quit and will-quit both ask for it (either can come first, and
// will-quit can be reached without before-quit on some exits); every step runs exactly once,
// and one failing step does not keep the next from running. Pure.
export interface Shutdown {
  run(): void;
  readonly done: boolean;
}

export function createShutdown(
  steps: ReadonlyArray<readonly [name: string, step: () => void]>,
  onError: (name: string, err: unknown) => void,
): Shutdown {
  let done = false;
  return {
    run() {
      if (done) return;
      done = true;
      for (const [name, step] of steps) {
        try {
          step();
        } catch (err) {
          onError(name, err);
        }
      }
    },
    get done() {
      return done;
    },
  };
}
