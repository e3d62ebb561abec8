/** Jest: unit specs beside the code (*.spec.ts), integration (*.int-spec.ts) and end-to-end (*.e2e-spec.ts). */
const { pathsToModuleNameMapper } = require('./tools/jest-paths');
const swc = ['@swc/jest', { jsc: { parser: { syntax: 'typescript', decorators: true }, transform: { legacyDecorator: true, decoratorMetadata: true }, target: 'es2022' }, module: { type: 'commonjs' } }];
module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': swc, '^.+/node_modules/(content-disposition|mppx)/.+\\.js$': swc },
  // content-disposition (under @fastify/static) and mppx ship only ESM; Jest on Node 20 cannot require them untransformed.
  transformIgnorePatterns: ['/node_modules/(?!content-disposition/|mppx/)'],
  moduleNameMapper: pathsToModuleNameMapper(),
  testMatch: ['<rootDir>/{libs,services,apps,test,clients}/**/*.{spec,int-spec,e2e-spec}.ts'],
  // the main realm's typed arrays in every test file: onnxruntime-node (the default embedder) refuses the sandbox's
  setupFiles: ['<rootDir>/libs/testing/src/jest-setup.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '/data/'],
  maxWorkers: 2,
  // a worker's heap grows across test files (each file loads its own Nest apps and models); CI's stop-17 run
  // crashed one at 3.4 GB. A worker that holds more than this after a file is replaced by a fresh one.
  workerIdleMemoryLimit: '1536MB',
  testTimeout: 60000,
};
