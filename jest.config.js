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
  testTimeout: 60000,
};
