import {
  formatUsd,
  LIMITS,
  MEMORY_TYPES,
  PAID_ROUTES,
  PRICE_LIST_MICRO_USD,
  RATE_LIMITS,
  SANDBOX_INITIAL_CREDIT_MICRO_USD,
  SIGNATURE_WINDOW_SECONDS,
  TOP_UP_LIMITS_MICRO_USD,
} from '@agent-memory/shared';
import type { BillingMode } from '../gateway.options';
import { jsonSchemaOf } from '../openapi/json-schemas';
import type { RouteEntry } from '../openapi/route-table';

/** What of a deployment's configuration the guide states (the rest comes from `@agent-memory/shared`). */
export interface LlmsTxtFacts {
  billingMode: BillingMode;
  /** Calls per minute per client address without an agent (`RATE_LIMIT_ANONYMOUS_PER_MINUTE`). */
  anonymousPerMinute: number;
  /** Realm and chain of the `Payment` challenges (docs/billing.md, "Configuration"). */
  payment: { realm: string; chainId: number; currency: string };
  /** The application's routes (../openapi/route-table.ts, the OpenAPI document's source): "Main calls" lists those of {@link MAIN_CALL_TAGS}. */
  routes: readonly RouteEntry[];
}

/** The tags whose operations "Main calls" lists, in this order: the work an agent does on its records. */
export const MAIN_CALL_TAGS = ['records', 'memories', 'files'] as const;

const kb = (bytes: number) => `${bytes / 1024} KB`;
const mb = (bytes: number) => `${bytes / (1024 * 1024)} MB`;

const BILLING_MODE_WORDS: Record<BillingMode, string> = {
  off: 'nothing is charged',
  ledger: 'calls run without payment and are recorded in a usage ledger',
  enforce: 'every paid call must be paid, from the prepaid balance or with a Payment credential, else 402',
};

/**
 * The `/llms.txt` guide for agents (the llms.txt convention: a title, a one-line summary, short sections
 * of plain Markdown): what the service is, how to create an agent, the four auth methods
 * (docs/authentication.md), prices and payment (docs/billing.md), sizes and rate limits (docs/api.md
 * "Sizes", "Rate limits"), and where the contract is. Every figure is read from `@agent-memory/shared`
 * (prices.ts, limits.ts) or the deployment's options, so the guide cannot drift from what the server does.
 */
export function llmsTxt(facts: LlmsTxtFacts): string {
  const price = (op: keyof typeof PRICE_LIST_MICRO_USD) => formatUsd(PRICE_LIST_MICRO_USD[op]);
  const paid = PAID_ROUTES.map((r) => `- ${r.operation}: \`${r.method} ${r.path}\`, ${price(r.operation)} USD per ${r.unit}`);
  return [
    '# agent-memory',
    '',
    '> Long-term memory for AI agents over HTTP: records (memory spaces) holding memories and files; remember text, recall it by meaning, forget it, read the whole context. JSON in, JSON out, in the envelope {"success":true,"data":...} or {"success":false,"error":{"code","message"}}.',
    '',
    'Base path `/api/v1`. The full contract (every operation, field, error and header) is the OpenAPI 3.1 document at `/openapi.json`, readable at `/docs`.',
    '',
    '## Create an agent',
    '',
    '`POST /api/v1/agents` with `{"name":"my agent"}` (no auth) answers 201 with `agentId`, `agentKey` (`Bearer` key, shown once), `recordId` (the default record), `walletAddress`, `mode`, and `walletPrivateKey` when the service generated the wallet.',
    '`agentKey` and `walletPrivateKey` are shown once and never again: store them as secrets, keep them out of logs, prompts and shell history. The wallet is the only one that may pay for the agent\'s calls.',
    '`"mode":"local"` makes an agent that signs every request with its wallet; `"environment":"test"` makes a sandbox agent whose key draws on free sandbox credit.',
    '',
    '## Authentication (one `Authorization` header)',
    '',
    '- `Bearer <agent key>`: an agent (`amk_live_...` or `amk_test_...`).',
    `- \`Signature <timestamp>:<walletAddress>:<signature>\`: a \`local\` agent, each request signed by its wallet (EIP-191, ±${SIGNATURE_WINDOW_SECONDS} s); the only method of the raw blob routes.`,
    '- `Passkey <session credential>`: a human after a passkey sign-in (dashboard).',
    '- `Payment <credential>`: pays one paid call (or a top-up) without a balance.',
    'Missing or invalid credentials: 401 UNAUTHORIZED.',
    '',
    `## Main calls (${MAIN_CALL_TAGS.join(', ')})`,
    '',
    ...mainCalls(facts.routes),
    `Memory types: ${MEMORY_TYPES.join(', ')}. Fields marked \`?\` are optional; \`/openapi.json\` has each field's limits.`,
    '',
    '## Prices and payment',
    '',
    `Billing mode of this server: \`${facts.billingMode}\` (${BILLING_MODE_WORDS[facts.billingMode]}). Paid calls are charged once, only on success:`,
    ...paid,
    'Everything else is free. `GET /api/v1/billing/prices` returns this list.',
    `Pay from the agent's prepaid balance (\`POST /api/v1/billing/top-up\`, ${formatUsd(TOP_UP_LIMITS_MICRO_USD.min)} to ${formatUsd(TOP_UP_LIMITS_MICRO_USD.max)} USD) or per call: a paid call without balance answers 402 with \`WWW-Authenticate: Payment\` (Machine Payments Protocol, method \`evm\`, intent \`charge\`, realm \`${facts.payment.realm}\`, chain ${facts.payment.chainId}, token ${facts.payment.currency}); sign the EIP-3009 transfer with the agent's wallet and repeat the exact same request with \`Authorization: Payment <credential>\`. Any MPP client does this, e.g. \`mppx\` (\`npx mppx <url>\`) or \`mppx/client\`'s fetch. Test agents start with ${formatUsd(SANDBOX_INITIAL_CREDIT_MICRO_USD)} USD of sandbox credit.`,
    '',
    '## Limits',
    '',
    `- Memory content ${LIMITS.memoryContentBytes.min} byte to ${kb(LIMITS.memoryContentBytes.max)}; file content up to ${mb(LIMITS.fileContentBytes.max)}; paths up to ${LIMITS.pathLength.max} characters.`,
    `- Recall query ${LIMITS.recallQuery.min}-${LIMITS.recallQuery.max} characters, limit ${LIMITS.recallLimit.min}-${LIMITS.recallLimit.max} (default ${LIMITS.recallLimit.default}); context up to ${LIMITS.contextPerType.max} memories per type.`,
    `- Names ${LIMITS.recordName.min}-${LIMITS.recordName.max} characters, at most ${LIMITS.tags.maxCount} tags of up to ${LIMITS.tags.maxLength} characters, idempotency keys up to ${LIMITS.idempotencyKey.max} characters.`,
    `- Rate limits per sliding ${RATE_LIMITS.windowSeconds} s: ${RATE_LIMITS.agentPerMinute} requests per agent, ${RATE_LIMITS.recordWritesPerMinute} writes and ${RATE_LIMITS.recordQueriesPerMinute} queries per record, ${facts.anonymousPerMinute} calls without an agent (create agent) per client address. A 429 carries \`Retry-After\` (seconds); every limited answer carries \`RateLimit\` and \`RateLimit-Policy\`.`,
    '',
    '## More',
    '',
    '- [OpenAPI 3.1 document](/openapi.json): every operation, schema, error and security scheme',
    '- [API reference](/docs): the same document, readable',
    '- [Prices](/api/v1/billing/prices): the price list and payment parameters, as JSON',
    '',
  ].join('\n');
}

/**
 * One line per operation of {@link MAIN_CALL_TAGS}, read from the route table the OpenAPI document is built
 * from (so the guide lists what the server serves): method and path, the body and query fields (`?`:
 * optional; from the route's zod schemas), the `@Returns` summary, and the price from the shared price list
 * (the route kind's `price`) or "free".
 */
export function mainCalls(routes: readonly RouteEntry[]): string[] {
  const tagOrder = (route: RouteEntry) => (MAIN_CALL_TAGS as readonly string[]).indexOf(route.tag);
  return routes
    .filter((route) => route.path.startsWith('/api/v1/') && tagOrder(route) >= 0)
    .sort((a, b) => tagOrder(a) - tagOrder(b))
    .map((route) => {
      const price = route.kind?.kind === 'record' ? route.kind.options.price : undefined;
      const unit = PAID_ROUTES.find((r) => r.operation === price)?.unit;
      const cost = price ? `${formatUsd(PRICE_LIST_MICRO_USD[price])} USD per ${unit}` : 'free';
      const signatureOnly = route.kind?.kind === 'record' && route.kind.options.credential === 'signature' ? ', wallet signature only' : '';
      const fields = [route.body && `body ${fieldsOf(route.body.schema)}`, route.query && `query ${fieldsOf(route.query)}`].filter(Boolean).join(', ');
      return `- \`${route.method.toUpperCase()} ${route.path}\`${fields ? ` ${fields}` : ''}: ${route.returns?.summary ?? route.handlerName} (${cost}${signatureOnly}).`;
    });
}

/** `{content, type?, path?}`: the top-level fields a client sends, from the schema's input form. */
function fieldsOf(schema: Parameters<typeof jsonSchemaOf>[0]): string {
  const json = jsonSchemaOf(schema, 'input') as { properties?: Record<string, unknown>; required?: string[] };
  return `{${Object.keys(json.properties ?? {})
    .map((name) => (json.required?.includes(name) ? name : `${name}?`))
    .join(', ')}}`;
}
