import { defineConfig } from 'tsup';

/**
 * The published builds of @agent-memory/client: ES module (dist/index.mjs) and CommonJS
 * (dist/index.cjs) with their declarations. libs/shared is private, so its types are inlined into the
 * declarations (`dts.resolve`); its code is never needed at run time (type-only imports). viem, mppx and
 * zod (types of the schemas) stay dependencies; viem and mppx are imported lazily.
 */
export default defineConfig({
  entry: { index: 'src/index.ts' },
  format: ['esm', 'cjs'],
  outExtension: ({ format }) => ({ js: format === 'esm' ? '.mjs' : '.cjs' }),
  platform: 'neutral',
  target: 'es2022',
  tsconfig: 'tsconfig.build.json',
  dts: { resolve: [/^@agent-memory\/shared/], compilerOptions: { composite: false } },
  external: ['viem', /^viem\//, 'mppx', /^mppx\//, 'zod'],
  clean: true,
  sourcemap: false,
  treeshake: true,
  splitting: false,
});
