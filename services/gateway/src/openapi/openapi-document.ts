import type { INestApplicationContext } from '@nestjs/common';
import { parseUnits } from 'viem';
import { z } from 'zod';
import {
  AgentIdSchema,
  AgentKeyIdSchema,
  PasskeyIdSchema,
  type ErrorCode,
  FailureEnvelopeSchema,
  formatUsd,
  HTTP_STATUS_BY_CODE,
  PAID_ROUTES,
  type PaidOperation,
  PRICE_LIST_MICRO_USD,
  RATE_LIMITS,
  RecordIdSchema,
  successEnvelope,
} from '@agent-memory/shared';
import { PaymentProtocol } from '../billing/payment-protocol';
import { GATEWAY_OPTIONS, type GatewayOptions } from '../gateway.options';
import { POLICY_NAMES } from '../rate-limit/rate-limit.service';
import type { RouteKindOptions } from '../http/route-kinds';
import { type JsonSchema, jsonSchemaOf, SchemaComponents } from './json-schemas';
import { errorsOf, rateLimitPolicies, rateLimitText, SECURITY_SCHEMES, securityOf } from './operation-rules';
import { type RouteEntry, routeTable } from './route-table';

/** An OpenAPI 3.1 document as plain JSON. */
export type OpenApiDocument = Record<string, unknown> & { openapi: '3.1.0'; paths: Record<string, Record<string, OpenApiOperation>> };
/** One operation of {@link OpenApiDocument}. */
export type OpenApiOperation = Record<string, unknown> & { operationId: string; responses: Record<string, Record<string, unknown>> };

/** The only routes the contract describes: the versioned API (docs/api.md, "Conventions"). `/healthz`, `/docs`, `/openapi.json`, `/llms.txt` are outside it. */
const API_PREFIX = '/api/v1/';

/** The shared schema of each path parameter name (an invalid id is answered like an unknown one: 404, docs/api.md). */
const PATH_PARAMETERS: Record<string, { schema: z.ZodType; example: string; description: string }> = {
  recordId: { schema: RecordIdSchema, example: 'rec_7Hq2mV9xK3pL8nR4tW6yZa', description: "The record's id (one of the caller's records; any other id: 404)." },
  agentId: { schema: AgentIdSchema, example: 'agt_3kP9sT2vX7mQ4nL8rW5yBc', description: 'An agent the signed-in human claimed (any other id: 404).' },
  keyId: { schema: AgentKeyIdSchema, example: 'key_5mN8qR2tV6xZ9bD3fH7jKa', description: "One of the agent's key ids (any other id: 404)." },
  passkeyId: { schema: PasskeyIdSchema, example: 'dGhlLXBhc3NrZXktY3JlZGVudGlhbC1pZA', description: "One of the signed-in human's passkey ids, as listed by GET /api/v1/humans/me (any other id: 404)." },
};

/** What each error status means (docs/api.md, "Errors"). */
const ERROR_TEXT: Record<ErrorCode, string> = {
  VALIDATION_ERROR:
    'VALIDATION_ERROR: a body, query or path parameter breaks its schema (the message names the field and the limit), an unreadable or non-JSON body, a body over the route cap (there is no 413), two Authorization headers, or a malformed request refused at the HTTP edge.',
  UNAUTHORIZED: 'UNAUTHORIZED: no usable credential (missing, malformed, unknown, expired or revoked).',
  PAYMENT_REQUIRED:
    'PAYMENT_REQUIRED: the call is not paid (balance too low, no credential in `enforce` mode, or a credential that does not verify). When it can be paid, `WWW-Authenticate: Payment` carries the challenge to pay with `Authorization: Payment <credential>`.',
  FORBIDDEN: 'FORBIDDEN: authenticated but not allowed (a storage quota, raw blobs of a `cloud` agent, a test key on another record, a passkey session on a write other than the owner’s erasures, a test key on a live-only action).',
  NOT_FOUND: "NOT_FOUND: the record, memory, file, agent or key does not exist or is not the caller's.",
  RATE_LIMITED: 'RATE_LIMITED: a rate limit, a full admission queue or an idempotency key still in progress; retry after `Retry-After` seconds.',
  INTERNAL_ERROR: 'INTERNAL_ERROR: anything else, including a bus timeout; the message carries an error id that is also in the log.',
};

const HEADERS = {
  RateLimit: { description: 'Remaining quota of each policy that counted the request: `"agent";r=97;t=42, ...` (IETF httpapi ratelimit-headers draft).', schema: { type: 'string' } },
  RateLimitPolicy: {
    description: `The policies that counted the request: \`"${POLICY_NAMES.agent}";q=${RATE_LIMITS.agentPerMinute};w=${RATE_LIMITS.windowSeconds}, "${POLICY_NAMES.recordWrite}";q=${RATE_LIMITS.recordWritesPerMinute};w=${RATE_LIMITS.windowSeconds}\`.`,
    schema: { type: 'string' },
  },
  RetryAfter: { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 1 } },
  WwwAuthenticate: { description: 'The `Payment` challenge (price, currency, recipient, expiry) to pay with `Authorization: Payment <credential>`; absent when the payment is being reconciled.', schema: { type: 'string' } },
  PaymentReceipt: { description: 'The receipt of a settled `Payment` credential.', schema: { type: 'string' } },
  RequestId: { description: 'The request id (the `x-request-id` sent, or one picked by the service): quote it when reporting a problem.', schema: { type: 'string' } },
} as const;
const headerRef = (name: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${name}` });

/** The paid-call parameters stated in `x-payment-info` (the `Payment` method of docs/billing.md). */
export interface PaymentDiscovery {
  /** The mppx payment method and intent: `evm`, `charge`. */
  method: string;
  intent: string;
  /** The token contract address the price is paid in. */
  currency: string;
  /** The token's decimals: the price in base units is `priceUsd × 10^decimals` (USDC: 6, one micro-USD per unit). */
  decimals: number;
}

/** What of the deployment's configuration the document states besides payment: the per-client limit of calls without an agent (`RATE_LIMIT_ANONYMOUS_PER_MINUTE`). */
export interface DeploymentLimits {
  anonymousPerMinute: number;
}

/**
 * The OpenAPI 3.1 document of the gateway (docs/api.md, "The OpenAPI contract"), built from the running
 * application: every `/api/v1` route of its Nest controllers ({@link routeTable}) with its request (the
 * shared zod schemas of its `@Body()`/`@Query()` DTOs and path ids), its success answer (`@Returns`,
 * inside the `{ success: true, data }` envelope), every error its route kind implies (the failure
 * envelope with the code), the security schemes of its kind, the rate-limit and payment headers, and
 * for paid operations the MPP discovery extension `x-payment-info` (price in the payment token's base
 * units). The price and the token come from `libs/shared/src/prices.ts` and the app's payment options;
 * the per-client limit of calls without an agent from the app's gateway options.
 * @throws Error naming the route when an API route has no route kind or no `@Returns`, or a path
 *   parameter has no known id schema.
 */
export function buildOpenApiDocument(app: INestApplicationContext): OpenApiDocument {
  const payments = app.get(PaymentProtocol, { strict: false }).describe();
  const { anonymousPerMinute } = app.get<symbol, GatewayOptions>(GATEWAY_OPTIONS, { strict: false });
  return openApiDocumentOf(
    routeTable(app),
    { method: payments.method, intent: payments.intent, currency: payments.currency, decimals: payments.decimals },
    { anonymousPerMinute },
  );
}

/** {@link buildOpenApiDocument} from a route table, the payment parameters and the deployment's limits (no application needed). */
export function openApiDocumentOf(routes: readonly RouteEntry[], payment: PaymentDiscovery, limits: DeploymentLimits): OpenApiDocument {
  const components = new SchemaComponents();
  const paths: OpenApiDocument['paths'] = {};
  const tags = new Set<string>();
  for (const route of routes) {
    if (!route.path.startsWith(API_PREFIX)) continue;
    if (!route.kind) throw new Error(`OpenAPI: ${route.handlerName} (${route.method.toUpperCase()} ${route.path}) has no route kind`);
    if (!route.returns) throw new Error(`OpenAPI: ${route.handlerName} (${route.method.toUpperCase()} ${route.path}) has no @Returns(schema, { summary })`);
    tags.add(route.tag);
    (paths[route.path] ??= {})[route.method] = operationOf(route, route.kind, components, payment, limits);
  }
  for (const code of Object.keys(HTTP_STATUS_BY_CODE) as ErrorCode[]) components.schemas[failureName(code)] = failureSchema(code);
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'agent-memory',
      version: '1',
      summary: 'Memory service for AI agents: records, memories, files, recall, context.',
      description:
        'Every answer uses the envelope `{ success: true, data }` or `{ success: false, error: { code, message } }` (docs/api.md). Paid operations carry `x-payment-info` (MPP discovery): pay from a prepaid balance with an agent key, or per call with `Authorization: Payment`.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: '/', description: 'This server' }],
    'x-service-info': { categories: ['ai', 'memory', 'storage'], docs: { apiReference: '/docs', llms: '/llms.txt' } },
    tags: [...tags].sort().map((name) => ({ name, description: `The ${name} operations (docs/api.md)` })),
    paths,
    components: { schemas: components.schemas, securitySchemes: SECURITY_SCHEMES, headers: HEADERS },
  };
}

function operationOf(route: RouteEntry, kind: RouteKindOptions, components: SchemaComponents, payment: PaymentDiscovery, limits: DeploymentLimits): OpenApiOperation {
  const returns = route.returns!;
  const price = kind.kind === 'record' ? kind.options.price : undefined;
  const limited = rateLimitPolicies(kind).length > 0;
  const limitHeaders = limited ? { RateLimit: headerRef('RateLimit'), 'RateLimit-Policy': headerRef('RateLimitPolicy') } : {};
  const success = jsonSchemaOf(successEnvelope(z.unknown()), 'output') as { properties: Record<string, unknown> };
  success.properties.data = components.ref(returns.schema, 'output');
  const responses: OpenApiOperation['responses'] = {
    [route.status]: {
      description: returns.summary,
      headers: { 'x-request-id': headerRef('RequestId'), ...limitHeaders, ...(price || kind.kind === 'top-up' ? { 'Payment-Receipt': headerRef('PaymentReceipt') } : {}) },
      content: { 'application/json': { schema: success } },
    },
  };
  for (const code of errorsOf(kind, returns.errors)) {
    const headers: Record<string, unknown> = { 'x-request-id': headerRef('RequestId'), ...(code === 'UNAUTHORIZED' ? {} : limitHeaders) };
    if (code === 'RATE_LIMITED') headers['Retry-After'] = { ...headerRef('RetryAfter') };
    if (code === 'PAYMENT_REQUIRED') headers['WWW-Authenticate'] = headerRef('WwwAuthenticate');
    responses[HTTP_STATUS_BY_CODE[code]] = {
      description: ERROR_TEXT[code],
      headers,
      content: { 'application/json': { schema: { $ref: `#/components/schemas/${failureName(code)}` } } },
    };
  }
  const operation: OpenApiOperation = {
    operationId: route.handlerName.replace('Controller.', '_'),
    summary: returns.summary,
    description: descriptionOf(kind, returns.description, price, limits),
    tags: [route.tag],
    security: securityOf(kind),
    parameters: [...pathParameters(route), ...queryParameters(route)],
    responses,
  };
  if (route.body) {
    operation.requestBody = { required: route.body.required, content: { 'application/json': { schema: components.ref(route.body.schema, 'input') } } };
  }
  if (price) operation['x-payment-info'] = paymentInfo(price, payment);
  return operation;
}

/** `x-payment-info` of a paid operation (MPP discovery): the price in the token's base units, as a decimal integer string. */
function paymentInfo(operation: PaidOperation, payment: PaymentDiscovery): Record<string, unknown> {
  const micro = PRICE_LIST_MICRO_USD[operation];
  const unit = PAID_ROUTES.find((r) => r.operation === operation)?.unit ?? 'call';
  return {
    intent: payment.intent,
    method: payment.method,
    amount: parseUnits(formatUsd(micro), payment.decimals).toString(),
    currency: payment.currency,
    description: `${operation}: ${formatUsd(micro)} USD per ${unit}`,
  };
}

function descriptionOf(kind: RouteKindOptions, text: string | undefined, price: PaidOperation | undefined, limits: DeploymentLimits): string {
  const lines = [text ?? ''];
  lines.push(price ? `Price: ${formatUsd(PRICE_LIST_MICRO_USD[price])} USD per successful call, from the balance or with \`Authorization: Payment\` (see \`x-payment-info\`).` : 'Free.');
  const rateLimits = rateLimitText(kind, limits.anonymousPerMinute);
  if (rateLimits) lines.push(`Rate limits: ${rateLimits}.`);
  return lines.filter(Boolean).join('\n\n');
}

function pathParameters(route: RouteEntry): unknown[] {
  return [...route.path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => {
    const known = PATH_PARAMETERS[name];
    if (!known) throw new Error(`OpenAPI: ${route.handlerName}: no schema for the path parameter "${name}"`);
    return { name, in: 'path', required: true, description: known.description, schema: jsonSchemaOf(known.schema, 'input'), example: known.example };
  });
}

/**
 * One query parameter per field of the route's query object schema, with that field's limits. A whole
 * number travels as digits (`queryInt` in libs/shared): its parameter is described by the parsed form
 * (`integer` with its minimum, maximum and default), which is what a client sends.
 */
function queryParameters(route: RouteEntry): unknown[] {
  if (!route.query) return [];
  type ObjectSchema = { properties?: Record<string, JsonSchema>; required?: string[] };
  const input = jsonSchemaOf(route.query, 'input') as ObjectSchema;
  const output = jsonSchemaOf(route.query, 'output') as ObjectSchema;
  return Object.entries(input.properties ?? {}).map(([name, sent]) => {
    const parsed = output.properties?.[name];
    const numeric = sent.type === 'string' && (parsed?.type === 'integer' || parsed?.type === 'number');
    const schema = numeric && parsed ? parsed : sent;
    return {
      name,
      in: 'query',
      required: input.required?.includes(name) ?? false,
      ...(typeof schema.description === 'string' ? { description: schema.description } : {}),
      schema,
    };
  });
}

const failureName = (code: ErrorCode) => `Failure${code
  .toLowerCase()
  .split('_')
  .map((w) => w[0].toUpperCase() + w.slice(1))
  .join('')}`;

/** The failure envelope (libs/shared/src/envelope.ts) with its code fixed to `code`. */
function failureSchema(code: ErrorCode): JsonSchema {
  const json = jsonSchemaOf(FailureEnvelopeSchema, 'output') as { properties: { error: { properties: Record<string, unknown> } } };
  json.properties.error.properties.code = { type: 'string', const: code };
  return json;
}
