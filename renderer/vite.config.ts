import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The renderer is built once and served by Electron and by browser mode (127.0.0.1).
// Paths come from this file's URL, so the build works from any working directory.
const here = (rel: string) => decodeURIComponent(new URL(rel, import.meta.url).pathname);

export default defineConfig({
  root: here('.'),
  base: './',
  plugins: [react()],
  build: {
    outDir: here('../out/renderer'),
    emptyOutDir: true,
    sourcemap: false,
    target: 'es2022',
  },
});
