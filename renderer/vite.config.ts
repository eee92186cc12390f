import { defineConfig, type Plugin, type Rollup } from 'vite';

type OutputChunk = Rollup.OutputChunk;
import react from '@vitejs/plugin-react';

// The renderer is built once and served by Electron and by browser mode (127.0.0.1).
// Paths come from this file's URL, so the build works from any working directory.
const here = (rel: string) => decodeURIComponent(new URL(rel, import.meta.url).pathname);

/**
 * main.tsx imports the app (start.tsx) dynamically, after asking for the fleet; a
 * `<link rel="modulepreload">` for that chunk and the chunks it imports lets the browser fetch and
 * compile them while the entry runs, instead of only when the import is reached.
 */
function preloadApp(): Plugin {
  return {
    name: 'sightline-preload-app',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(_html, ctx) {
        const chunks = new Map<string, OutputChunk>();
        for (const c of Object.values(ctx.bundle ?? {})) if (c.type === 'chunk') chunks.set(c.fileName, c);
        const app = [...chunks.values()].find(
          (c) => c.isDynamicEntry && c.facadeModuleId?.endsWith('/src/start.tsx'),
        );
        if (!app) throw new Error('vite.config.ts: the app chunk (start.tsx) is missing');
        // The app chunk and every chunk it imports, however deep, so none waits for another to arrive.
        const files = new Set<string>();
        const visit = (c: OutputChunk) => {
          if (files.has(c.fileName) || c.isEntry) return;
          files.add(c.fileName);
          for (const f of c.imports) visit(chunks.get(f)!);
        };
        visit(app);
        return [...files].map((file) => ({
          tag: 'link',
          attrs: { rel: 'modulepreload', crossorigin: true, href: `./${file}` },
          injectTo: 'head' as const,
        }));
      },
    },
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
  },
});
