// Where the stdio shim is and what runs it. Under plain Node (tests, browser mode) the running
// Node runs it; in the packaged app, whose binary cannot act as Node (the runAsNode fuse is off),
// the `node` on PATH does, and the script is the copy the build unpacks next to the app.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveCommand } from '../runtime/acp/command';

export interface ShimLocation {
  /** Absolute path of the Node binary that runs the shim. */
  node: string;
  /** Absolute path of stdio-shim.mjs. */
  script: string;
}

/** The shim next to this module, run by this Node; undefined when either cannot be found. */
export function resolveShim(given?: { script: string; node?: string }): ShimLocation | undefined {
  let script = given?.script;
  if (!script) {
    try {
      script = fileURLToPath(new URL('./stdio-shim.mjs', import.meta.url));
    } catch {
      return undefined; // bundled without the file beside it: the host passes its path
    }
  }
  let node = given?.node;
  if (!node) {
    if (!process.versions.electron) node = process.execPath;
    else {
      try {
        node = resolveCommand({ id: 'node', name: 'node', command: 'node', args: [], env: {} });
      } catch {
        return undefined;
      }
    }
  }
  return { node, script: path.resolve(script) };
}
