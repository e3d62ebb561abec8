import { z } from 'zod';

/** One POST to an OpenAI-compatible endpoint (embeddings, chat completions), as {@link postOpenAiJson} sends it. */
export interface OpenAiJsonRequest<S extends z.ZodType> {
  /** Full endpoint URL, e.g. `https://api.openai.com/v1/embeddings`. */
  url: string;
  /** Sent as `Authorization: Bearer <apiKey>` when given (never put in an error message). */
  apiKey?: string;
  /** Whole-request timeout in milliseconds (the response body included). */
  timeoutMs: number;
  /** The JSON request body. */
  body: unknown;
  /** First word of every error message, e.g. `embeddings`. */
  what: string;
  /** Schema of the JSON answer. */
  schema: S;
  /** End of the error message for an answer the schema refuses, e.g. `is not a chat completion`. */
  shapeError: string;
}

/**
 * POSTs `body` as JSON to an OpenAI-compatible endpoint and returns its JSON answer parsed by `schema`.
 * Used by the OpenAI-compatible embedder and enricher (docs/configuration.md).
 * @throws Error `<what> request to <url> timed out after <timeoutMs> ms` (also for a slow body), `… failed: <reason>`
 *   (network), `… failed with HTTP <status>: <first 300 characters of the body>`, `<what> response from <url> is not
 *   JSON: …`, or `<what> response from <url> <shapeError>: <the schema's issues>`.
 */
export async function postOpenAiJson<S extends z.ZodType>(request: OpenAiJsonRequest<S>): Promise<z.output<S>> {
  const { url, what } = request;
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (request.apiKey) headers.authorization = `Bearer ${request.apiKey}`;
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(request.body), signal: AbortSignal.timeout(request.timeoutMs) });
    // The timeout signal also aborts a slow body.
    text = await response.text();
  } catch (error) {
    const name = (error as Error | undefined)?.name;
    if (name === 'TimeoutError' || name === 'AbortError') {
      throw new Error(`${what} request to ${url} timed out after ${request.timeoutMs} ms`, { cause: error });
    }
    throw new Error(`${what} request to ${url} failed: ${(error as Error | undefined)?.message ?? String(error)}`, { cause: error });
  }
  if (!response.ok) throw new Error(`${what} request to ${url} failed with HTTP ${response.status}: ${text.slice(0, 300)}`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`${what} response from ${url} is not JSON: ${text.slice(0, 300)}`);
  }
  const parsed = request.schema.safeParse(json);
  if (!parsed.success) throw new Error(`${what} response from ${url} ${request.shapeError}: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
