import { z } from 'zod';
import { formatUsd, PRICE_LIST_MICRO_USD, resolveForgetTarget, type PaidOperation } from '@agent-memory/shared';
import { toolErrorOf, type MemoryApi } from './memory-api';
import {
  contextAnswer,
  errorAnswer,
  forgetAnswer,
  listRecordsAnswer,
  readFileAnswer,
  recallAnswer,
  rememberAnswer,
  writeFileAnswer,
  type ToolAnswer,
} from './tool-answers';
import { describeIssues, toolInputSchemas, type ToolArgs, type ToolInputSchemas, type ToolName } from './tool-schemas';

/** MCP tool annotations (hints for the host: read-only, destructive, idempotent; the service is not an open world). */
interface ToolHints {
  readOnlyHint: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint: false;
}

interface ToolSpec<N extends ToolName> {
  title: string;
  description: string;
  annotations: ToolHints;
  run(api: MemoryApi, args: ToolArgs<N>, signal?: AbortSignal): Promise<ToolAnswer>;
}

/** The price sentence of a paid tool, from the one price list (docs/billing.md, "Prices"). */
const paid = (operation: PaidOperation) => `Costs ${formatUsd(PRICE_LIST_MICRO_USD[operation])} USD per call.`;
const read = { readOnlyHint: true, openWorldHint: false } as const;

/**
 * The seven tools (docs/api.md, "Memories", "Files", "Records"): what each does, for the model, and how it
 * calls the service. Rate limits: 30 writes/min per record (remember, forget, write_file), 60 queries/min
 * (recall, context); a RATE_LIMITED answer says when to retry.
 */
const TOOLS: { [N in ToolName]: ToolSpec<N> } = {
  remember: {
    title: 'Remember',
    description: `Store a memory in a record: a fact, preference, event, relationship or skill worth keeping across conversations. Returns its id, path, type and summary. ${paid('remember')}`,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    run: async (api, args, signal) => rememberAnswer(await api.remember(args, signal)),
  },
  recall: {
    title: 'Recall',
    description: `Find the memories of a record that best match a question (by meaning and keywords). Returns a numbered list, best first, with similarity, type, path, id and summary; context shows full content. ${paid('recall')}`,
    annotations: read,
    run: async (api, args, signal) => recallAnswer(args.query, await api.recall(args, signal)),
  },
  forget: {
    title: 'Forget',
    description: `Delete one memory for good, by path or by id (exactly one). ${paid('forget')}`,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    run: async (api, args, signal) => {
      const target = resolveForgetTarget({ path: args.path, id: args.id }, {});
      if (!target.ok) return errorAnswer({ code: 'VALIDATION_ERROR', message: target.message });
      return forgetAnswer(await api.forget(args.record_id, target.target, signal));
    },
  },
  context: {
    title: 'Context',
    description: `Load a record's memories with their full content, grouped by type (identity, fact, relationship, episode, skill), newest first: the way to start a conversation with what is known. ${paid('context')}`,
    annotations: read,
    run: async (api, args, signal) => contextAnswer(await api.context(args, signal)),
  },
  read_file: {
    title: 'Read file',
    description: `Read a text file of a record; answers its content. ${paid('read_file')}`,
    annotations: read,
    run: async (api, args, signal) => readFileAnswer(await api.readFile(args, signal)),
  },
  write_file: {
    title: 'Write file',
    description: `Write (create or replace) a text file of at most 1 MB in a record, e.g. notes or a document the agent keeps. ${paid('write_file')}`,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    run: async (api, args, signal) => writeFileAnswer(await api.writeFile(args, signal)),
  },
  list_records: {
    title: 'List records',
    description: "List the agent's records (id, name, category, tags), newest first, a page at a time. Free.",
    annotations: read,
    run: async (api, args, signal) => listRecordsAnswer(await api.listRecords(args, signal)),
  },
};

/** A tool as `tools/list` shows it: name, title, description, JSON Schema of its input, annotations. */
export interface ListedTool {
  [key: string]: unknown;
  name: ToolName;
  title: string;
  description: string;
  inputSchema: { [key: string]: unknown; type: 'object' };
  annotations: ToolHints & { title: string };
}

/**
 * The MCP tools bound to one service client: `list()` for `tools/list` (input schemas as JSON Schema,
 * draft 7, of the zod schemas' input side) and `call()` for `tools/call`. `call` never throws: bad
 * arguments answer VALIDATION_ERROR (checked here with the same schemas the service applies, before any
 * request), errors of the service answer their code and message.
 */
export class MemoryTools {
  private readonly schemas: ToolInputSchemas;

  constructor(
    private readonly api: MemoryApi,
    options: { defaultRecordId?: string } = {},
  ) {
    this.schemas = toolInputSchemas(options.defaultRecordId);
  }

  list(): ListedTool[] {
    return (Object.keys(TOOLS) as ToolName[]).map((name) => {
      const { title, description, annotations } = TOOLS[name];
      const inputSchema = z.toJSONSchema(this.schemas[name], { io: 'input', target: 'draft-7' }) as ListedTool['inputSchema'];
      delete inputSchema['$schema'];
      return { name, title, description, inputSchema, annotations: { title, ...annotations } };
    });
  }

  /** True for the name of one of the seven tools. */
  has(name: string): name is ToolName {
    return Object.hasOwn(TOOLS, name);
  }

  async call<N extends ToolName>(name: N, args: unknown, signal?: AbortSignal): Promise<ToolAnswer> {
    const parsed = this.schemas[name].safeParse(args ?? {});
    if (!parsed.success) return errorAnswer({ code: 'VALIDATION_ERROR', message: describeIssues(parsed.error) });
    try {
      return await TOOLS[name].run(this.api, parsed.data as ToolArgs<N>, signal);
    } catch (error) {
      return errorAnswer(toolErrorOf(error));
    }
  }
}
