import { defineConfig, type Plugin, type Rollup } from 'vite';

type OutputChunk = Rollup.OutputChunk;
import react from '@vitejs/plugin-react';

// The renderer is built once and served by Electron and by browser mode (127.0.0.1).
// Paths come from this file's URL, so the build works from any working directory.
const here = (rel: string) => decodeURIComponent(new URL(rel, import.meta.url).pathname);

/**
 * main.tsx imports the app (start.tsx) dynamically, after asking for the fleet; a
 * `<link rel="modulepreload">` for that chunk and the chunks it imports lets the browser fetch and
 * compile them while the entry runs, instead of only when the import is reached. The entry's own
 * imports are linked here too: Vite's modulepreload is off (its polyfill, a script of its own that
 * ran before the entry, and the links it adds at each dynamic import; views load after the first
 * paint anyway).
 */
function preloadApp(): Plugin {
  return {
    name: 'sightline-preload-app',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html, ctx) {
        const chunks = new Map<string, OutputChunk>();
        for (const c of Object.values(ctx.bundle ?? {})) if (c.type === 'chunk') chunks.set(c.fileName, c);
        const app = [...chunks.values()].find((c) => c.moduleIds.some((id) => id.endsWith('/src/start.tsx')));
        if (!app) throw new Error('vite.config.ts: the app chunk (start.tsx) is missing');
        // The app chunk and every chunk it imports, however deep, so none waits for another to arrive.
        const files = new Set<string>();
        const visit = (c: OutputChunk) => {
          if (files.has(c.fileName)) return;
          if (!c.isEntry) files.add(c.fileName);
          for (const f of c.imports) visit(chunks.get(f)!);
        };
        for (const c of chunks.values()) if (c.isEntry) visit(c);
        visit(app);
        const missing = [...files].filter((file) => !html.includes(file));
        return missing.map((file) => ({
          tag: 'link',
          attrs: { rel: 'modulepreload', crossorigin: true, href: `./${file}` },
          injectTo: 'head' as const,
        }));
      },
    },
  };
}

interface Graph {
  getModuleInfo(id: string): { importedIds: readonly string[] } | null;
}

/** Every module `root` imports statically, however deep. */
function reachable(graph: Graph, root: string, into = new Set<string>()): Set<string> {
  const stack = [root];
  while (stack.length) {
    const id = stack.pop()!;
    if (into.has(id)) continue;
    into.add(id);
    stack.push(...(graph.getModuleInfo(id)?.importedIds ?? []));
  }
  return into;
}

/**
 * Everything the app chunk (start.tsx) needs, outside the small entry, in that one chunk: left
 * to itself the bundler splits out every module it shares with a lazy view into a chunk of its
 * own (ten files of 1–6 KB), each one more request on every load.
 */
function appChunk(): (id: string, graph: Graph) => string | null {
  let entry: Set<string> | undefined;
  let app: Set<string> | undefined;
  return (id, graph) => {
    if (!entry || !app) {
      entry = reachable(graph, here('src/main.tsx'));
      app = reachable(graph, here('src/start.tsx'));
      for (const m of entry) app.delete(m);
    }
    return entry.has(id) ? 'boot' : app.has(id) ? 'start' : null;
  };
}

export default defineConfig({
  root: here('.'),
  base: './',
  plugins: [react(), preloadApp()],
  build: {
    outDir: here('../out/renderer'),
    emptyOutDir: true,
    sourcemap: false,
    target: 'es2022',
    modulePreload: false,
    rolldownOptions: { output: { codeSplitting: { groups: [{ name: appChunk() }] } } },
  },
});
