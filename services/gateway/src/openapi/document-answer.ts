import { randomUUID } from 'node:crypto';
import { fail } from '@agent-memory/shared';

/** One HTTP answer: status and the JSON body, already serialized. */
export interface JsonAnswer {
  status: number;
  body: string;
}

/**
 * The answer of `/openapi.json`, built on the first call and kept: `build()` runs once, its result is
 * serialized once, and every later call returns the same string. When `build()` throws (an API route
 * without `@Returns`, see ./openapi-document.ts), the failure is kept too: every call answers 500 with
 * the failure envelope `INTERNAL_ERROR` (docs/api.md, "Errors") and an error id, logged once with the
 * error, and the builder is not run again (the route table cannot change while the server runs).
 * @param build the document builder, e.g. `() => buildOpenApiDocument(app)`.
 * @param log where the failure is reported, once: `log.error({ errorId, err }, message)`.
 */
export function cachedJsonAnswer(build: () => unknown, log: { error(details: object, message: string): void }): () => JsonAnswer {
  let answer: JsonAnswer | undefined;
  return () => {
    if (answer) return answer;
    try {
      answer = { status: 200, body: JSON.stringify(build()) };
    } catch (err) {
      const errorId = randomUUID();
      log.error({ errorId, err }, 'The OpenAPI document could not be built');
      answer = { status: 500, body: JSON.stringify(fail('INTERNAL_ERROR', `Internal error (error id ${errorId})`)) };
    }
    return answer;
  };
}
