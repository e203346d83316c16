// Static build served by `bioagent serve` (relative asset paths, no CDN).
import { defineConfig } from 'vite';

export default defineConfig({
  base: './',
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, target: 'es2020' },
});
