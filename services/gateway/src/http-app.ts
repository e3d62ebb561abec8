import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply } from 'fastify';
import { type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { DomainError, LIMITS } from '@agent-memory/shared';
import { runWithBusHeaders } from '@agent-memory/platform';
import { authorizationFieldCount } from './auth/authorization-header';
import { answerClientError, answerFrameworkError, MAX_PARAM_LENGTH } from './http/edge-errors';
import { DEFAULT_HTTP_SECURITY, type HttpSecurityOptions, registerHttpSecurity } from './http/http-security';
import { type DashboardOptions, registerDashboard } from './http/dashboard';
import { cachedJsonAnswer } from './openapi/document-answer';
import { buildOpenApiDocument } from './openapi/openapi-document';
import { recordServedRoutes } from './openapi/served-routes';

/**
 * Largest accepted request body, bytes: a 1 MB file whose every character needs a 6-byte JSON escape
 * fits; the schemas then enforce the exact content limits of docs/api.md with a clear message.
 */
export const BODY_LIMIT_BYTES = 6 * LIMITS.fileContentBytes.max + 64 * 1024;

/**
 * The Fastify adapter with the gateway's request ids (`x-request-id` in, echoed out) and the envelope
 * on the errors raised below the routes: Node's parser refusals and the router's (docs/api.md, "Errors
 * at the HTTP edge"; ./http/edge-errors.ts).
 */
export function createGatewayHttpAdapter(): FastifyAdapter {
  return new FastifyAdapter({
    bodyLimit: BODY_LIMIT_BYTES,
    genReqId: (req: { headers: Record<string, string | string[] | undefined> }) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.:-]{1,128}$/.test(given) ? given : randomUUID();
    },
    // JSON bodies with __proto__/constructor keys are refused outright.
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    // a router option (Fastify 5 warns, FSTDEP022, when it is given at the top level)
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
  });
}

/** What `/docs/swagger-ui-init.js` embeds: Swagger UI ignores it (it fetches `/openapi.json`), `@nestjs/swagger` requires one. */
const SWAGGER_UI_STUB: OpenAPIObject = { openapi: '3.1.0', info: { title: 'agent-memory', version: '1', description: 'See /openapi.json' }, paths: {} };

/**
 * Fastify-level hooks that Nest's filters cannot see: body parsing errors, unknown routes, the request
 * id header, the bus correlation id, per-route body limits and security headers
 * ({@link registerHttpSecurity}), and the OpenAPI 3.1 contract ({@link buildOpenApiDocument}) at
 * `/openapi.json` (also `/docs/openapi.json`), read by the Swagger UI page at `/docs`, and the web dashboard at
 * `/dashboard` ({@link registerDashboard}). The document is built
 * and serialized once, on its first request ({@link cachedJsonAnswer}): an API route without `@Returns` makes
 * that route answer 500 (logged once) and fails the contract tests, it does not stop the server starting.
 * Call before `init`/`listen`, so that the body limits and the route list ({@link recordServedRoutes}) see every route.
 */
export function configureGatewayApp(app: NestFastifyApplication, options: { security?: HttpSecurityOptions; dashboard?: DashboardOptions } = {}): void {
  const fastify = app.getHttpAdapter().getInstance();
  registerHttpSecurity(fastify, options.security ?? DEFAULT_HTTP_SECURITY);
  fastify.addHook('onRequest', (req, reply, done) => {
    void reply.header('x-request-id', req.id);
    runWithBusHeaders({ requestId: String(req.id) }, done);
  });
  // Two credentials are refused before any guard runs: Node keeps only the first (docs/authentication.md).
  fastify.addHook('onRequest', (req, _reply, done) => {
    if (authorizationFieldCount(req.raw.rawHeaders) > 1) return done(new DomainError('VALIDATION_ERROR', 'Authorization: send exactly one Authorization header'));
    done();
  });
  // JSON only: a text/plain body is refused with VALIDATION_ERROR instead of reaching the schemas as a string.
  fastify.removeContentTypeParser(['text/plain']);
  recordServedRoutes(fastify);
  const documentAnswer = cachedJsonAnswer(() => buildOpenApiDocument(app), new Logger('OpenAPI'));
  const serveDocument = (_req: unknown, reply: FastifyReply) => {
    const { status, body } = documentAnswer();
    void reply.code(status).type('application/json; charset=utf-8').send(body);
  };
  fastify.get('/openapi.json', serveDocument);
  fastify.get('/docs/openapi.json', serveDocument);
  // The UI page loads /openapi.json (`url`; `spec: {}` overrides the embedded document), so its init
  // script embeds only a stub instead of a second copy of the document.
  SwaggerModule.setup('docs', app, SWAGGER_UI_STUB, { raw: false, swaggerOptions: { url: '/openapi.json', spec: {} } });
  registerDashboard(fastify, options.dashboard);
}
