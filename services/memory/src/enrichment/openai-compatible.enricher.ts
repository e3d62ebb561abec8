import { z } from 'zod';
import { MemoryTypeSchema } from '@agent-memory/shared';
import { collapseWhitespace, truncateAtWord } from '../summary/extractive.summariser';
import { postOpenAiJson } from '../embedding/openai-compatible.http';
import type { Enricher, Enrichment } from './enricher.port';

/** Options of {@link OpenAiCompatibleEnricher}. */
export interface OpenAiCompatibleEnricherOptions {
  /** API root without the `/chat/completions` suffix, e.g. `https://api.openai.com/v1` or `http://localhost:11434/v1`. */
  baseUrl: string;
  /** Model name sent as `model`. */
  model: string;
  /** Sent as `Authorization: Bearer <apiKey>` when given. */
  apiKey?: string;
  /** Per-request timeout in milliseconds. Default 30000. */
  timeoutMs?: number;
  /** Characters of content sent to the model; longer content is cut (the summary describes its start). Default 8000. */
  maxContentChars?: number;
}

/** Longest summary kept, as the extractive summariser's default (summariser.port.ts). */
export const ENRICHED_SUMMARY_MAX_CHARS = 280;

/**
 * The system message. The type definitions follow the five memory types of docs/api.md ("Memories"); the reply must be one JSON object so that it can be validated.
 */
export const ENRICHMENT_INSTRUCTION = [
  'You classify and summarise one memory stored by an AI agent.',
  'Reply with exactly one JSON object and nothing else, of the form',
  '{"type": "identity" | "fact" | "relationship" | "episode" | "skill", "summary": "<one sentence>"}.',
  'Types: identity = who the user or agent is (name, role, traits, background);',
  'fact = a stable piece of knowledge, setting or preference;',
  'relationship = how people, agents or organisations relate to each other;',
  'episode = something that happened at a particular time or place;',
  'skill = how to do something (steps, procedures, instructions).',
  `The summary is at most ${ENRICHED_SUMMARY_MAX_CHARS} characters, in the language of the memory, and adds nothing that the memory does not say.`,
].join(' ');

/** The part of the OpenAI chat-completions response this adapter reads (other fields are ignored). */
const ChatCompletionSchema = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullable().optional() }) })).min(1),
});

/** The model's reply: both fields optional, extra fields ignored, an invalid field invalidates the reply. */
const EnrichmentReplySchema = z.object({
  type: MemoryTypeSchema.optional(),
  summary: z.string().optional(),
});

/**
 * The text between a leading "```" (or "```json") and the last "```" of `reply`, trimmed; `reply` itself
 * when it is not fenced. String operations, not `/^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/`: that
 * pattern is cubic in a run of whitespace (2,000 tabs after the fence: 2 s of CPU), and the model's
 * reply can echo what a memory asks it to write.
 */
function unfence(reply: string): string {
  const trimmed = reply.trim();
  if (trimmed.length < 6 || !trimmed.startsWith('```') || !trimmed.endsWith('```')) return reply;
  const inner = trimmed.slice(3, -3);
  return (inner.slice(0, 4).toLowerCase() === 'json' ? inner.slice(4) : inner).trim();
}

/**
 * Parses a model reply into an {@link Enrichment}: the JSON object (optionally inside a ```json fence),
 * validated by zod. Returns `{}` for anything else. The summary is whitespace-collapsed, dropped when
 * empty and cut at a word to {@link ENRICHED_SUMMARY_MAX_CHARS}.
 */
export function parseEnrichmentReply(content: string | null | undefined): Enrichment {
  if (typeof content !== 'string') return {};
  let json: unknown;
  try {
    json = JSON.parse(unfence(content));
  } catch {
    return {};
  }
  const parsed = EnrichmentReplySchema.safeParse(json);
  if (!parsed.success) return {};
  const out: Enrichment = {};
  if (parsed.data.type) out.type = parsed.data.type;
  const summary = collapseWhitespace(parsed.data.summary ?? '');
  if (summary.length > 0) out.summary = truncateAtWord(summary, ENRICHED_SUMMARY_MAX_CHARS);
  return out;
}

/**
 * {@link Enricher} on any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, Ollama, LM Studio,
 * llama.cpp server...): `POST {baseUrl}/chat/completions` with `{ model, temperature: 0, messages: [system
 * instruction, user content] }`, reading `choices[0].message.content` (OpenAI API reference, "Create chat
 * completion"). No `response_format` is sent: not every compatible server accepts `json_object`; the
 * instruction asks for JSON and {@link parseEnrichmentReply} validates it. id `openai-chat:<model>`.
 *
 * Returns `{}` when the model's reply is not a valid JSON enrichment. Throws an `Error` naming the URL
 * (never the API key) when the request times out or cannot connect, the status is not 2xx, or the body is
 * not a chat-completions response (a misconfigured URL), so that the job is retried and, if it keeps
 * failing, dead-lettered where an operator sees it.
 */
export class OpenAiCompatibleEnricher implements Enricher {
  readonly id: string;
  private readonly url: string;
  private readonly model: string;
  private readonly apiKey?: string;
  private readonly timeoutMs: number;
  private readonly maxContentChars: number;

  constructor(options: OpenAiCompatibleEnricherOptions) {
    if (!options.baseUrl || !options.model) throw new Error('OpenAiCompatibleEnricher needs a baseUrl and a model');
    this.url = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
    this.model = options.model;
    this.apiKey = options.apiKey;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.maxContentChars = Math.max(1, Math.floor(options.maxContentChars ?? 8_000));
    this.id = `openai-chat:${options.model}`;
  }

  async enrich(content: string): Promise<Enrichment> {
    const body = {
      model: this.model,
      temperature: 0,
      messages: [
        { role: 'system', content: ENRICHMENT_INSTRUCTION },
        { role: 'user', content: content.length > this.maxContentChars ? content.slice(0, this.maxContentChars) : content },
      ],
    };
    const answer = await postOpenAiJson({
      url: this.url,
      apiKey: this.apiKey,
      timeoutMs: this.timeoutMs,
      body,
      what: 'enrichment',
      schema: ChatCompletionSchema,
      shapeError: 'is not a chat completion',
    });
    return parseEnrichmentReply(answer.choices[0].message.content);
  }
}
