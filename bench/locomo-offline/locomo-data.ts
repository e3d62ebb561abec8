import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The LoCoMo file kept in the repository (source and licence, CC BY-NC 4.0: bench/data/README.md). */
export const LOCOMO_PATH = join(__dirname, '..', 'data', 'locomo10.json');

/** One dialogue turn as one memory: content `"<speaker>: <text>"` (bench/data/README.md). */
export interface Turn {
  diaId: string;
  content: string;
}

/** One question with its evidence turn ids (normalised, see {@link parseEvidence}). */
export interface Question {
  question: string;
  category: number;
  evidence: string[];
}

/** One LoCoMo conversation: a tenant of the benchmark. */
export interface Conversation {
  sampleId: string;
  turns: Turn[];
  questions: Question[];
}

interface RawTurn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}

/**
 * Normalises LoCoMo evidence strings, which have a few typos in the published file: several ids in one
 * string ("D8:6; D9:17"), an extra colon ("D:11:26"), a zero-padded turn ("D30:05"), a bare "D".
 * Returns every `D<session>:<turn>` found, without padding; ids that do not name an existing turn are
 * kept (they count as evidence that can never be retrieved).
 */
export function parseEvidence(evidence: readonly string[]): string[] {
  const ids = new Set<string>();
  for (const raw of evidence) {
    for (const match of raw.matchAll(/D:?(\d+):(\d+)/g)) ids.add(`D${Number(match[1])}:${Number(match[2])}`);
  }
  return [...ids];
}

/** Reads the ten conversations: turns in dialogue order, questions with parsed evidence. */
export function loadLocomo(file = LOCOMO_PATH): Conversation[] {
  const data = JSON.parse(readFileSync(file, 'utf8')) as {
    sample_id: string;
    conversation: Record<string, unknown>;
    qa: { question: string; category: number; evidence?: string[] }[];
  }[];
  return data.map((sample) => {
    const sessions = Object.keys(sample.conversation)
      .filter((key) => /^session_\d+$/.test(key))
      .sort((a, b) => Number(a.slice(8)) - Number(b.slice(8)));
    const turns: Turn[] = [];
    for (const session of sessions) {
      for (const turn of sample.conversation[session] as RawTurn[]) {
        const caption = turn.blip_caption ? ` [image: ${turn.blip_caption}]` : '';
        turns.push({ diaId: turn.dia_id, content: `${turn.speaker}: ${turn.text}${caption}` });
      }
    }
    const questions = sample.qa.map((qa) => ({
      question: qa.question,
      category: qa.category,
      evidence: parseEvidence(qa.evidence ?? []),
    }));
    return { sampleId: sample.sample_id, turns, questions };
  });
}
