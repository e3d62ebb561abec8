// Question marks of Latin, full-width, Spanish, Arabic and Greek script.
const QUESTION_MARKS = /[?\uFF1F\u00BF\u061F\u037E]/g;
const WHITESPACE_RUN = /\s+/g;
// A leading English interrogative ("how long", "what") and the auxiliary after it ("did", "is").
const LEADING_INTERROGATIVE =
  /^\s*(?:what|when|where|who|whom|whose|which|why|how(?:\s+(?:long|many|much|often|old|far|soon))?)\b\s*(?:(?:do|does|did|is|are|was|were|has|have|had|will|would|can|could|should|shall|may|might|must)\b)?\s*/i;

/**
 * Text to embed for a recall query (not for keywords): the query without question marks and, for
 * English, without its leading interrogative and auxiliary ("When did Melanie paint a sunrise?" →
 * "Melanie paint a sunrise"). Falls back to the query without question marks if nothing else is left.
 *
 * Why: memories are statements, queries are often questions. A sentence encoder places a question near
 * other questions, so its nearest memories are the stored questions ("What did you paint?"), not the
 * statements that answer it. Measured on LoCoMo with Universal Sentence Encoder lite (all 1,986
 * questions, dense retrieval alone): Recall@10 35.9 → 43.8 without "?", → 45.6 with the interrogative
 * also removed (bench/locomo-offline/tune.ts). The rule uses no data set knowledge: it is the usual
 * question-to-statement normalisation of keyword-style query rewriting. Pure, never throws.
 */
export function denseQueryText(query: string): string {
  const withoutMarks = query.replace(QUESTION_MARKS, ' ').replace(WHITESPACE_RUN, ' ').trim();
  const stripped = withoutMarks.replace(LEADING_INTERROGATIVE, '').trim();
  return stripped.length > 0 ? stripped : withoutMarks.length > 0 ? withoutMarks : query;
}

/** Every pattern {@link denseQueryText} runs over a query, for the ReDoS check of its spec (each must be linear). */
export const QUERY_REWRITE_PATTERNS: Readonly<Record<string, RegExp>> = { QUESTION_MARKS, LEADING_INTERROGATIVE, WHITESPACE_RUN };
