import { Command, Option } from 'commander';
import { version } from '../package.json';
import { commandContext, type CommandContext, type GlobalOptions } from './config/context';
import { mcpCommand } from './mcp/mcp.command';
import { describeError, formatError } from './output/errors';

/**
 * The `agent-memory` command tree (clients/cli/README.md, "Commands"). Each command's code is loaded
 * only when that command runs, so `agent-memory --help` starts without loading the SDK, zod or the
 * table and progress libraries.
 */
export function buildProgram(): Command {
  const program = new Command('agent-memory')
    .description('Memory for AI agents: remember, recall, forget, files, export and import, from the command line.')
    .version(version, '-V, --version')
    .option('--json', 'print results as JSON (for scripts); notices and progress go to stderr')
    .option('-p, --profile <name>', 'config profile to use (env AGENT_MEMORY_PROFILE; default: the config\'s default profile)')
    .option('--base-url <url>', 'service URL (env AGENT_MEMORY_URL; default: the profile\'s, else http://127.0.0.1:8080)')
    .showHelpAfterError()
    .showSuggestionAfterError()
    // a usage error found by commander (unknown option, bad choice, missing argument) exits 2, as ours do;
    // set before the subcommands are declared, which inherit it
    .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : 2));

  program
    .command('init')
    .description('create an agent and keep its key in the config file (mode 0600) under a profile')
    .option('--name <name>', 'agent name (1-128 characters)', 'cli agent')
    .addOption(new Option('--mode <mode>', 'cloud (agent key) or local (wallet signatures, raw blobs)').choices(['cloud', 'local']).default('cloud'))
    .addOption(new Option('--environment <env>', 'live (real balance) or test (sandbox credit)').choices(['live', 'test']).default('live'))
    .option('--save-wallet-key', 'also keep the generated wallet private key in the config file (needed by `pay` for live top-ups)')
    .option('--force', 'replace the agent of an existing profile')
    .action(run(async () => (await import('./commands/init')).init));

  const profiles = program.command('profiles').description('list profiles or choose the default one');
  profiles.command('ls').description('list the profiles of the config file').action(run(async () => (await import('./commands/profiles')).listProfiles));
  profiles
    .command('use <name>')
    .description('make <name> the default profile')
    .action(run(async () => (await import('./commands/profiles')).useProfile));

  const records = program.command('records').description('list, create, delete records, or choose the default record');
  records
    .command('ls')
    .description('list the agent\'s records, newest first')
    .option('--limit <n>', 'records per page (1-100)', '20')
    .option('--offset <n>', 'records to skip', '0')
    .action(run(async () => (await import('./commands/records')).listRecords));
  records
    .command('create <name>')
    .description('create a record')
    .option('--tags <tags>', 'comma-separated tags (at most 10)')
    .option('--category <category>', 'category (default general)')
    .option('--parent <recordId>', 'parent record')
    .option('--use', 'make it the profile\'s default record')
    .action(run(async () => (await import('./commands/records')).createRecord));
  records
    .command('rm <recordId>')
    .description('delete a record with its memories and files')
    .option('--cascade', 'also delete its child records')
    .action(run(async () => (await import('./commands/records')).removeRecord));
  records
    .command('use <recordId>')
    .description('make <recordId> the profile\'s default record (used when --record is not given)')
    .action(run(async () => (await import('./commands/records')).useRecord));

  const recordOption = () => new Option('-r, --record <recordId>', 'record (env AGENT_MEMORY_RECORD; default: the profile\'s record)');

  program
    .command('remember <content>')
    .description('store a memory (content "-" reads stdin); 0.05 USD')
    .addOption(recordOption())
    .addOption(new Option('-t, --type <type>', 'memory type (default: picked by the service)').choices(['identity', 'fact', 'relationship', 'episode', 'skill']))
    .option('--path <path>', 'where to store it (an existing path is replaced; default <type>/<memory id>)')
    .action(run(async () => (await import('./commands/memories')).remember));
  program
    .command('recall <query>')
    .description('find memories by meaning (a table: rank, similarity, type, path, summary); 0.05 USD')
    .addOption(recordOption())
    .option('-n, --limit <n>', 'how many (1-50)', '10')
    .option('-t, --types <types>', 'comma-separated memory types to keep')
    .action(run(async () => (await import('./commands/memories')).recall));
  program
    .command('forget')
    .description('delete one memory, by --path or --id; 0.05 USD')
    .addOption(recordOption())
    .option('--path <path>', 'the memory\'s path')
    .option('--id <memoryId>', 'the memory\'s id (mem_…)')
    .action(run(async () => (await import('./commands/memories')).forget));
  program
    .command('context')
    .description('the record\'s memories by type, newest first; 0.05 USD')
    .addOption(recordOption())
    .option('-n, --limit <n>', 'memories per type (1-200)', '50')
    .action(run(async () => (await import('./commands/memories')).context));

  const files = program.command('files').description('write and read files of a record');
  files
    .command('put <path> [source]')
    .description('write a file from <source> (a local file; "-" or nothing reads stdin) or --content; 0.05 USD')
    .addOption(recordOption())
    .option('--content <text>', 'the file content as an argument')
    .action(run(async () => (await import('./commands/files')).putFile));
  files
    .command('get <path>')
    .description('print a file (or write it with --output); 0.05 USD')
    .addOption(recordOption())
    .option('-o, --output <file>', 'write the content to this local file')
    .action(run(async () => (await import('./commands/files')).getFile));

  program
    .command('export')
    .description('write a record\'s memories and files as JSON Lines (resumable: rerun to continue)')
    .addOption(recordOption())
    .requiredOption('-o, --output <file>', 'the .jsonl file to write (a checkpoint <file>.checkpoint sits beside it while it runs)')
    .option('--page-size <n>', 'memories per listing page (1-200; each page costs 0.05 USD)', '200')
    .option('--force', 'overwrite an existing output that has no checkpoint')
    .action(run(async () => (await import('./transfer/export')).exportRecord));
  program
    .command('import <file>')
    .description('write an export\'s memories and files into a record (resumable and idempotent: rerun to continue)')
    .addOption(recordOption())
    .option('--create-record [name]', 'import into a new record (named after the exported one unless given)')
    .option('--restart', 'ignore the checkpoint and go through the whole file again (idempotency keys still prevent double writes for 24 h)')
    .action(run(async () => (await import('./transfer/import')).importRecord));

  program
    .command('balance')
    .description('the agent\'s balance (live, or sandbox for a test key)')
    .action(run(async () => (await import('./commands/billing')).balance));
  program
    .command('pay <amount>')
    .description('top up the balance by <amount> USD: sandbox credit for a test key; for a live key, paid from the agent\'s wallet')
    .action(run(async () => (await import('./commands/billing')).pay));

  // the MCP server (src/mcp/): its module only declares the command; the server loads when it runs
  program.addCommand(mcpCommand());
  return program;
}

/**
 * Wraps a command's work: builds its {@link CommandContext} from the global options, loads the
 * command's function (`load`, a dynamic import: only the running command's code is loaded) and calls
 * it with the context and commander's arguments (the positional arguments, then the command's options),
 * and turns any error into one line on stderr (and the error envelope on stdout with `--json`) and a
 * non-zero exit code (2 for usage and configuration errors, 1 for failed requests).
 */
function run<A extends unknown[]>(load: () => Promise<(ctx: CommandContext, ...args: A) => Promise<void>>): (...args: unknown[]) => Promise<void> {
  return async (...args: unknown[]) => {
    const command = args[args.length - 1] as Command;
    const globals = command.optsWithGlobals<GlobalOptions>();
    let baseUrl: string | undefined;
    try {
      const ctx = commandContext(globals);
      baseUrl = ctx.baseUrl;
      const handler = await load();
      await handler(ctx, ...(args.slice(0, -1) as A));
    } catch (error) {
      const described = describeError(error);
      if (described.code === 'NETWORK_ERROR' && baseUrl) described.message += ` (is the service running at ${baseUrl}?)`;
      if (globals.json) {
        const { exitCode: _exitCode, ...shown } = described;
        process.stdout.write(`${JSON.stringify({ success: false, error: shown }, null, 2)}\n`);
      }
      process.stderr.write(`${formatError(described)}\n`);
      process.exitCode = described.exitCode;
    }
  };
}
