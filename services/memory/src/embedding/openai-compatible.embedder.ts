import { z } from 'zod';
import type { Embedder } from './embedder.port';
import { postOpenAiJson } from './openai-compatible.http';
import { normaliseL2 } from './vector-math';

/** Options of {@link OpenAiCompatibleEmbedder}. */
export interface OpenAiCompatibleEmbedderOptions {
  /** API root without the `/embeddings` suffix, e.g. `https://api.openai.com/v1` or `http://localhost:11434/v1`. */
  baseUrl: string;
  /** Model name sent as `model`, e.g. `text-embedding-3-small`. */
  model: string;
  /** Sent as `Authorization: Bearer <apiKey>` when given. */
  apiKey?: string;
  /** Expected vector length; every returned vector is checked against it. */
  dimension: number;
  /** Per-request timeout in milliseconds. Default 30000. */
  timeoutMs?: number;
  /** Most texts per request; longer inputs are split into sequential requests. Default 64. */
  batchSize?: number;
}

/** The part of the OpenAI embeddings response this adapter reads (other fields are ignored). */
const EmbeddingsResponseSchema = z.object({
  data: z
    .array(
      z.object({
        index: z.number().int().nonnegative(),
        embedding: z.array(z.number()),
      }),
    )
    .min(1),
});

/**
 * {@link Embedder} for any OpenAI-compatible embeddings endpoint (OpenAI, Azure-style proxies, vLLM,
 * Ollama, LM Studio, text-embeddings-inference...): `POST {baseUrl}/embeddings` with
 * `{ model, input: string[] }`, answer `{ data: [{ index, embedding: number[] }] }` (OpenAI API reference,
 * "Create embeddings"). id `openai:<model>@<dimension>`.
 *
 * Rows are put in input order by their `index` (servers may return them in any order) and L2-normalised
 * into `Float32Array`s. Throws an `Error` naming the URL when: the request times out (`timeoutMs`) or
 * cannot connect; the HTTP status is not 2xx (message includes up to 300 characters of the body); the body
 * is not JSON of the expected shape (zod); indices are missing, duplicated or out of range; or a vector's
 * length differs from `dimension`. The API key never appears in messages.
 */
export class OpenAiCompatibleEmbedder implements Embedder {
  readonly id: string;
  readonly dimension: number;
  private readonly url: string;
  private readonly model: string;
  private readonly apiKey?: string;
  private readonly timeoutMs: number;
  private readonly batchSize: number;

  constructor(options: OpenAiCompatibleEmbedderOptions) {
    if (!Number.isInteger(options.dimension) || options.dimension <= 0) {
      throw new Error(`dimension must be a positive integer, got ${options.dimension}`);
    }
    this.url = `${options.baseUrl.replace(/\/+$/, '')}/embeddings`;
    this.model = options.model;
    this.apiKey = options.apiKey;
    this.dimension = options.dimension;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.batchSize = Math.max(1, Math.floor(options.batchSize ?? 64));
    this.id = `openai:${options.model}@${options.dimension}`;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    // Sequential batches: keeps within provider input limits and rate limits.
    for (let i = 0; i < texts.length; i += this.batchSize) {
      out.push(...(await this.request(texts.slice(i, i + this.batchSize))));
    }
    return out;
  }

  private async request(texts: string[]): Promise<Float32Array[]> {
    const answer = await postOpenAiJson({
      url: this.url,
      apiKey: this.apiKey,
      timeoutMs: this.timeoutMs,
      body: { model: this.model, input: texts },
      what: 'embeddings',
      schema: EmbeddingsResponseSchema,
      shapeError: 'has an unexpected shape',
    });
    const rows = new Array<Float32Array | undefined>(texts.length);
    for (const item of answer.data) {
      if (item.index >= texts.length || rows[item.index]) {
        throw new Error(`embeddings response from ${this.url} has a duplicate or out-of-range index ${item.index}`);
      }
      if (item.embedding.length !== this.dimension) {
        throw new Error(
          `embeddings from ${this.url} (model ${this.model}) have ${item.embedding.length} dimensions, configured ${this.dimension}`,
        );
      }
      rows[item.index] = normaliseL2(item.embedding);
    }
    const missing = rows.findIndex((row) => row === undefined);
    if (missing !== -1) throw new Error(`embeddings response from ${this.url} has no vector for input ${missing}`);
    return rows as Float32Array[];
  }
}
