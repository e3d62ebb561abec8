import { randomUUID } from 'node:crypto';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { cleanupOpenApiDoc } from 'nestjs-zod';
import { DomainError, LIMITS } from '@agent-memory/shared';
import { runWithBusHeaders } from '@agent-memory/platform';
import { authorizationFieldCount } from './auth/authorization-header';
import * as requestDtos from './http/dto';
import { answerClientError, answerFrameworkError, MAX_PARAM_LENGTH } from './http/edge-errors';
import { DEFAULT_HTTP_SECURITY, type HttpSecurityOptions, registerHttpSecurity } from './http/http-security';

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
    maxParamLength: MAX_PARAM_LENGTH,
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
  });
}

/**
 * Fastify-level hooks that Nest's filters cannot see: body parsing errors, unknown routes, the request
 * id header, the bus correlation id, per-route body limits and security headers
 * ({@link registerHttpSecurity}), and the OpenAPI document at `/docs` (JSON at `/docs/openapi.json`).
 * Call before `init`/`listen`, so that the body limits reach the routes.
 */
export function configureGatewayApp(app: NestFastifyApplication, options: { security?: HttpSecurityOptions } = {}): void {
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
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('agent-memory')
      .setDescription('Memory service for AI agents: records, memories, files, recall, context. Every response uses the envelope { success, data | error }.')
      .setVersion('1')
      .addBearerAuth()
      .addApiKey({ type: 'apiKey', in: 'header', name: 'Authorization', description: 'Passkey <session credential> (humans; docs/authentication.md)' }, 'passkey')
      .build(),
  );
  SwaggerModule.setup('docs', app, markOmittableBodies(cleanupOpenApiDoc(document)), { jsonDocumentUrl: 'docs/openapi.json' });
}

/**
 * Marks as optional (`requestBody.required: false`) the bodies that may be left out: those of the DTO
 * classes of ./http/dto.ts with `static omittable = true`, which the request pipe reads as `{}` when absent.
 */
function markOmittableBodies(document: OpenAPIObject): OpenAPIObject {
  const omittable = new Set(
    Object.entries(requestDtos)
      .filter(([, dto]) => (dto as { omittable?: boolean }).omittable === true)
      .map(([name]) => `#/components/schemas/${name}`),
  );
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item) as Array<{ requestBody?: { required?: boolean; content?: Record<string, { schema?: { $ref?: string } }> } }>) {
      const ref = operation?.requestBody?.content?.['application/json']?.schema?.$ref;
      if (ref !== undefined && omittable.has(ref)) operation.requestBody!.required = false;
    }
  }
  return document;
}
