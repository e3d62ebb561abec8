import 'reflect-metadata';
import { checkDataDirectory } from './data-check';

/**
 * `npm run data:check [-- --repair]`: checks (and repairs) the standalone data directory DATA_DIR with the
 * service stopped; prints the report as JSON; exits 0 when everything is consistent, 1 when damage
 * remains, 2 when the check could not run (docs/deployment.md, "Checking and repairing a data directory").
 */
async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const unknown = args.filter((a) => a !== '--repair');
  if (unknown.length > 0) throw new Error(`Unknown argument ${unknown[0]}; usage: npm run data:check [-- --repair]`);
  const report = await checkDataDirectory(process.env, { repair: args.includes('--repair') });
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  process.exitCode = report.ok ? 0 : 1;
}

main().catch((err: unknown) => {
  process.stderr.write(`data:check failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 2;
});
