import {
  formatUsd,
  LIMITS,
  PAID_ROUTES,
  PRICE_LIST_MICRO_USD,
  RATE_LIMITS,
  SANDBOX_INITIAL_CREDIT_MICRO_USD,
  SIGNATURE_WINDOW_SECONDS,
  TOP_UP_LIMITS_MICRO_USD,
} from '@agent-memory/shared';
import type { BillingMode } from '../gateway.options';

/** What of a deployment's configuration the guide states (the rest comes from `@agent-memory/shared`). */
export interface LlmsTxtFacts {
  billingMode: BillingMode;
  /** Calls per minute per client address without an agent (`RATE_LIMIT_ANONYMOUS_PER_MINUTE`). */
  anonymousPerMinute: number;
  /** Realm and chain of the `Payment` challenges (docs/billing.md, "Configuration"). */
  payment: { realm: string; chainId: number; currency: string };
}

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
    '## Main calls (on a record: `/api/v1/records/{recordId}/...`)',
    '',
    '- `POST .../remember` `{"content":"...","type"?,"path"?,"idempotency_key"?}`: store a memory (types: identity, fact, relationship, episode, skill).',
    '- `POST .../recall` `{"query":"...","limit"?,"types"?}`: the memories closest in meaning.',
    '- `DELETE .../remember?id=...` or `?path=...`: forget one memory.',
    '- `GET .../context`: the newest memories of each type.',
    '- `POST .../write` `{"path":"...","content":"..."}` and `GET .../read?path=...`: files.',
    '- `POST /api/v1/records`, `GET /api/v1/records`: create and list records (free).',
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
