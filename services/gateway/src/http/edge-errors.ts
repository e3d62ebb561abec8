import { maxHeaderSize } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { type ErrorCode, fail, HTTP_STATUS_BY_CODE } from '@agent-memory/shared';

/**
 * Errors raised below the routes, which Nest's exception filter never sees, answered in the
 * envelope (docs/api.md, "Errors at the HTTP edge"). None of the answers repeats the URL or a header:
 * they are attacker-controlled and would otherwise be reflected (and logged by the caller's tools).
 */

/**
 * Longest path parameter Fastify's router accepts, characters. Node's parser already refuses a request
 * line plus headers over `http.maxHeaderSize` bytes (16 KB by default), so no parameter can be longer:
 * an overlong id reaches the routes and their guards like any other malformed id (401 without
 * credentials, NOT_FOUND for a record that is not the caller's) instead of the router's 414.
 */
export const MAX_PARAM_LENGTH = maxHeaderSize;

/** The envelope as raw HTTP/1.1 bytes, for a socket that never became a request (Node's `clientError`). */
function rawEnvelopeResponse(code: ErrorCode, message: string): string {
  const status = HTTP_STATUS_BY_CODE[code];
  const body = JSON.stringify(fail(code, message));
  return [
    `HTTP/1.1 ${status} ${status === 400 ? 'Bad Request' : 'Error'}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Cache-Control: no-store',
    'X-Content-Type-Options: nosniff',
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/** The message for one of Node's HTTP parser errors (`err.code`: `HPE_*` from llhttp, or Node's `ERR_HTTP_*`). */
export function clientErrorMessage(code: string | undefined): string {
  if (code === 'HPE_HEADER_OVERFLOW') return `request headers are too large: the request line and headers may take at most ${maxHeaderSize} bytes together`;
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 'the request was not received in time';
  if (code === 'HPE_INVALID_HEADER_TOKEN') return 'malformed request: a header contains a character HTTP does not allow (RFC 9110 §5.5)';
  return 'malformed HTTP request';
}

/**
 * Fastify's `clientErrorHandler` (Node's `clientError` event): a request Node's HTTP parser refused
 * before Fastify ran (oversized headers, a NUL or other control byte in a header, a malformed request
 * line, a request that did not arrive in time). Answers VALIDATION_ERROR 400 in the envelope (the codes
 * has no 408 or 431) and closes the connection, as Node itself does after a parse error.
 */
export function answerClientError(this: { log?: { trace: (o: object, m: string) => void } }, err: NodeJS.ErrnoException, socket: Duplex): void {
  // A reset connection: nobody is left to answer (https://nodejs.org/api/http.html#event-clienterror).
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  this?.log?.trace({ code: err.code }, 'client error');
  // Not while an earlier response on this keep-alive connection is still being written (Node sets
  // `_httpMessage` for that time): the bytes would interleave with it.
  const busy = (socket as Duplex & { _httpMessage?: unknown })._httpMessage;
  if (socket.writable && !busy) socket.write(rawEnvelopeResponse('VALIDATION_ERROR', clientErrorMessage(err.code)));
  socket.destroy(err);
}

/**
 * Fastify's `frameworkErrors`: the router's refusals before any route or hook runs. A malformed
 * percent-escape in the path (`FST_ERR_BAD_URL`) and a path parameter over {@link MAX_PARAM_LENGTH}
 * (`FST_ERR_MAX_PARAM_LENGTH`) are VALIDATION_ERROR 400; anything else is INTERNAL_ERROR.
 */
export function answerFrameworkError(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const answer =
    error.code === 'FST_ERR_BAD_URL'
      ? fail('VALIDATION_ERROR', 'path: the URL is malformed (an invalid percent-encoding, RFC 3986 §2.1)')
      : error.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? fail('VALIDATION_ERROR', `path: a path segment is longer than ${MAX_PARAM_LENGTH} characters`)
        : fail('INTERNAL_ERROR', 'Internal error');
  void reply
    .code(HTTP_STATUS_BY_CODE[answer.error.code])
    .header('content-type', 'application/json; charset=utf-8')
    .header('cache-control', 'no-store')
    .send(answer);
}
