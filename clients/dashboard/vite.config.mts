import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * The dashboard's build (docs/dashboard.md): a static single-page app under `/dashboard/`, served by the
 * gateway in both run modes. It reaches the service only through the public HTTP API, with the TypeScript
 * SDK (`@agent-memory/client`) and the shared contract types (type imports only).
 */
export default defineConfig({
  root: here('.'),
  base: '/dashboard/',
  plugins: [react()],
  resolve: {
    alias: {
      '@agent-memory/client': here('../typescript/src/index.ts'),
      '@agent-memory/shared': here('../../libs/shared/src/index.ts'),
    },
  },
  build: {
    outDir: here('dist'),
    emptyOutDir: true,
    // no inline scripts or styles: the gateway's Content-Security-Policy allows only the dashboard's own files
    assetsInlineLimit: 0,
    sourcemap: false,
    target: 'es2022',
  },
  logLevel: 'warn',
});
