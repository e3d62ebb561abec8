/** Maps the workspace path aliases of tsconfig.base.json to Jest's moduleNameMapper. */
const { compilerOptions } = require('../tsconfig.base.json');
exports.pathsToModuleNameMapper = () =>
  Object.fromEntries(
    Object.entries(compilerOptions.paths).map(([alias, [target]]) => [`^${alias.replace('/', '\\/')}$`, `<rootDir>/${target}`]),
  );
