/**
 * Port: a short summary of a memory's content, returned on remember and recall. Adapter:
 * `extractive.summariser.ts` (sentence importance); an LLM endpoint can replace it later.
 */
export interface Summariser {
  /** Returns a summary of at most `maxChars` characters (default 280); short content is returned as is. */
  summarise(content: string, maxChars?: number): Promise<string>;
}
export const SUMMARISER = Symbol('Summariser');
