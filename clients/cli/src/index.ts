/**
 * `@agent-memory/cli`: the `agent-memory` command (bin/agent-memory.js runs src/main.ts; see
 * clients/cli/README.md). Exported for other code: the config file of the CLI (its profiles and where
 * it lives) and the JSON Lines format of `export`/`import` with the idempotency key of an import line.
 */
export { ConfigStore, configPath, type ConfigFile, type Profile } from './config/config-store';
export { EXPORT_FORMAT, EXPORT_VERSION, importIdempotencyKey, parseExportLine, type ExportLine } from './transfer/export-format';
