import type { MemoryType } from '@agent-memory/shared';
import type { Embedder } from '../embedding/embedder.port';
import { RetryingLoad } from '../embedding/retrying-load';
import { dot, normaliseL2 } from '../embedding/vector-math';
import { embedDocument } from '../recall/document-embedding';
import type { MemoryTypeClassifier } from './memory-type-classifier.port';

/**
 * Example memories per type, written for this classifier (not taken from a data set). Their mean
 * embedding is the type's prototype. Short, plain and varied in person ("I", "the user", third person),
 * because agents write memories in all three.
 */
export const TYPE_PROTOTYPES: Readonly<Record<MemoryType, readonly string[]>> = {
  identity: [
    'My name is Ana and I am a nurse from Lisbon.',
    'I am an AI assistant for ACME customer support.',
    "The user's name is Tom; he is a 34-year-old software engineer.",
    'I was born in Kyoto and I speak Japanese and English.',
    'I am a vegetarian and I identify as non-binary.',
    'The user is a product manager at a fintech startup.',
    'You are a helpful coding agent named Scout.',
    'I work as a high school teacher and live in Toronto.',
  ],
  fact: [
    'The office is in Berlin.',
    'Paris is the capital of France.',
    'The user prefers dark mode.',
    'The API rate limit is 100 requests per minute.',
    'Water boils at 100 degrees Celsius at sea level.',
    'The production database runs PostgreSQL 16.',
    'The user likes their coffee without sugar.',
    'The project deadline is the end of the quarter.',
  ],
  relationship: [
    'Bob is my brother.',
    'Alice works with Carol on the billing team.',
    'Maria is married to Jonas.',
    "Sam is the user's manager.",
    'Priya and I have been friends since college.',
    'Dave reports to the head of engineering.',
    'My daughter Lucy goes to school with Tom.',
    'Ken is a close colleague and mentor of the user.',
  ],
  episode: [
    'Yesterday we met at the cafe and talked about the launch.',
    'On Monday the deploy failed and we rolled back.',
    'Last week the user asked me to draft a cover letter.',
    'In 2023 we moved the whole team to Lisbon.',
    'This morning the customer called to complain about a late delivery.',
    'Two days ago I fixed the login bug after a long debugging session.',
    'During the meeting on Friday the client approved the new design.',
    'We celebrated her birthday at a restaurant last night.',
  ],
  skill: [
    'To deploy, run npm run build and then push the tag.',
    'How to reset a password: open settings, choose security, then click reset.',
    'Step 1: install the CLI. Step 2: log in. Step 3: run the migration.',
    'To make cold brew, steep coarse coffee in cold water for 12 hours, then strain.',
    'First back up the database, then apply the migration, and finally restart the service.',
    'Use git rebase -i to squash commits before merging.',
    'When a test is flaky, rerun it with --runInBand to rule out shared state.',
    'To convert Celsius to Fahrenheit, multiply by 9/5 and add 32.',
  ],
};

/**
 * A dialogue turn's speaker label at the start of a memory: one or two capitalised words (each at most 31
 * characters) then `": "`, as in LoCoMo's `"Caroline: I went to a support group yesterday"`. Anchored and
 * bounded, so it reads at most ~65 characters of any input.
 */
export const SPEAKER_LABEL = /^\p{Lu}[\p{L}\p{M}'’.-]{0,30}(?: \p{Lu}[\p{L}\p{M}'’.-]{0,30})?: (?=\S)/u;

/**
 * Speakers given to the prototypes of dialogue turns (`"<speaker>: <prototype>"`, in turn). Names not used
 * by the labelled sets of the specs.
 */
const PROTOTYPE_SPEAKERS = ['Rosa', 'Ed', 'Maya', 'Theo'] as const;

/** A lexical cue: a test on the memory's text. A regular expression is one; so is {@link wordsInOrderOnOneLine}. */
export interface Cue {
  test(text: string): boolean;
}

/** A cue built from regular expressions, which it lists in `patterns` (for the ReDoS check of the specs). */
export interface CompositeCue extends Cue {
  readonly patterns: readonly RegExp[];
}

/** Characters after which a line ends, as `.` in a regular expression sees it. */
const LINE_BREAK = /\r\n|[\n\r\u2028\u2029]/;

/**
 * Cue: `first` and then, later on the same line, `second` (both word patterns without flags `g`/`y`).
 * Equivalent to `/first.*second/` but linear in the text's length: that regex retries `.*` from every
 * match of `first`, so a text repeating `first` costs time quadratic in its length (50 KB: ~0.4 s). Here
 * each line is searched once for its earliest `first` (the earliest is the best start) and once, after it,
 * for `second`.
 */
export function wordsInOrderOnOneLine(first: RegExp, second: RegExp): CompositeCue {
  return {
    patterns: [first, second],
    test(text: string): boolean {
      for (const line of text.split(LINE_BREAK)) {
        const start = first.exec(line);
        if (start && second.test(line.slice(start.index + start[0].length))) return true;
      }
      return false;
    },
  };
}

/** Either cue. */
function anyOf(...cues: CompositeCue[]): CompositeCue {
  return { patterns: cues.flatMap((cue) => cue.patterns), test: (text) => cues.some((cue) => cue.test(text)) };
}

/**
 * Lexical cues per type, each worth {@link CUE_WEIGHT} when it matches (at most two count per type).
 * Hand-written for this classifier from what each type means: identity = who someone (or the agent) is,
 * relationship = how people relate, episode = something that happened at a time, skill = how to do
 * something; fact has no cues because it is the catch-all.
 *
 * Every pattern here must stay linear in its input (no quantifier that can re-scan what another one
 * scanned, such as `\s*` or `.*` repeated from many start positions): the specs check each one with
 * recheck. The classifier also hands them only the first {@link CUE_WINDOW_CHARS} characters.
 */
export const TYPE_CUES: Readonly<Record<Exclude<MemoryType, 'fact'>, readonly Cue[]>> = {
  identity: [
    /\b(my|your|his|her|their|the user'?s?) name is\b/i,
    /\b(i am|i'm|you are|you're|the user is) (a|an|the) (?!(lot|bit|few)\b)\w+/i,
    /\b(i|he|she|they|the user) (work|works|worked) as\b/i,
    /\b(i was|i'm|he was|she was) born\b|\b(i am|i'm) \d+ years old\b|\bpronouns\b|\bgoes by\b/i,
    /\b(i|the user) (live|lives) in\b|\b(i am|i'm) (originally )?from\b/i,
  ],
  relationship: [
    /\b(brother|sister|mother|father|mom|dad|son|daughter|wife|husband|partner|girlfriend|boyfriend|cousin|aunt|uncle|grandmother|grandfather|fianc[ée]e?|sibling|parent|child)\b/i,
    /\b(friend|friends|colleague|colleagues|coworker|co-worker|teammate|boss|mentor|neighbou?r|roommate)\b/i,
    /\b(grandpa|grandma|grandparents?|nieces?|nephews?|god(mother|father|parent|son|daughter)|[a-z]+-in-law|ex-(wife|husband|partner)|co-?founders?|mentor(s|ed|ing)|rivals?|roommates|(business )?partners)\b/i,
    /\b(manager|reports?) (of|to)\b|\bmarried to\b|\b(works?|worked) (with|for|under)\b|\bknows\b|\bdating\b/i,
    /\b(manager|supervisor|supervises|supervised|team lead|landlord|landlady|tenant|assistant to)\b/i,
  ],
  episode: [
    /\b(yesterday|today|tonight|last (night|week|weekend|month|year|spring|summer|autumn|fall|winter|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|this (morning|afternoon|evening|week)|earlier today)\b/i,
    /\b(on|last) (monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b|\b\d+ (minutes?|hours?|days?|weeks?|months?|years?) ago\b|\bago\b/i,
    /\bin (19|20)\d\d\b|\bon (jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]* \d{1,2}\b|\b\d{4}-\d{2}-\d{2}\b/i,
    /\b(we|i|he|she|they) (met|went|visited|talked|discussed|called|said|asked|decided|celebrated|fixed|shipped|launched|rolled back|moved|had|got|saw|attended|finished|started)\b/i,
    /\b(during|after) the (meeting|call|incident|trip|launch|session|outage)\b/i,
  ],
  skill: [
    /\bhow to\b|\bhow do (i|you)\b/i,
    // A numbered step or list item: "step 2", or a line starting with "1." or "2)". Only spaces and tabs
    // may precede the number (`\s*` would cross lines and re-scan every blank line: quadratic).
    /\bstep \d\b|^[^\S\n\r\u2028\u2029]*\d+[.)]\s/im,
    /\bto \w+( \w+){0,3}, (run|use|open|click|type|call|set|install|add|press|go to|choose|select)\b/i,
    // "first ... then" or "then ... finally" on one line.
    anyOf(wordsInOrderOnOneLine(/\bfirst\b/i, /\bthen\b/i), wordsInOrderOnOneLine(/\bthen\b/i, /\bfinally\b/i)),
    /^(run|use|open|click|install|set|add|press|make sure|always|never)\b/i,
    // A purpose clause opening the memory ("To keep clay from cracking, let it dry ..."), or "the trick to".
    /^(to|if you want to|when you want to) (?!be honest)[^,.;\n]{1,80}, |\bthe (trick|key|secret) (to|with|for|is)\b/i,
  ],
};

/**
 * Cues read only the first this many characters of a memory (UTF-16 code units). What kind of memory a
 * text is shows at its start ("How to ...", "My name is ...", "1. ..."); and the work per memory stays
 * bounded whatever the content limit. The embedding (the larger part of the score) covers more.
 */
export const CUE_WINDOW_CHARS = 2_000;

/** Weight of one matching cue, relative to cosine similarity (USE-lite cosines between types differ by ~0.05–0.3). */
const CUE_WEIGHT = 0.12;
/** At most this many cues count per type, so long texts with many past-tense verbs do not run away. */
const MAX_CUES = 2;
/**
 * Types whose memories say so in words (a relation word; a time or an event verb), and identity in a
 * dialogue turn ("I'm a ...", "my name is"): without any of their cues their score drops by
 * {@link NO_CUE_PENALTY}. Without this the embedding alone made a chat turn a relationship (LoCoMo: 68.9 % of
 * 5,882 turns, 0.6 % facts; with it 5.5 % relationships, 71.3 % facts) and a plain statement an episode.
 */
const NEEDS_A_CUE: ReadonlySet<MemoryType> = new Set(['relationship', 'episode']);
/**
 * Score lost by a {@link NEEDS_A_CUE} type without a cue: in effect a gate, since cosines to the prototypes
 * differ by at most ~0.3 between types. On the labelled set (classifier-set.fixture.ts) 0.12, 0.2 and 0.3
 * gave 109, 111 and 111 of 120; on LoCoMo's turns 41.7 %, 17.8 % and 5.5 % relationships.
 */
const NO_CUE_PENALTY = 0.3;
/** A non-fact type must beat fact by this margin to win; otherwise the memory is a fact (the catch-all). */
const FACT_MARGIN = 0.02;

/** Per-type scores of one classification, exposed for tests and debugging. */
export type TypeScores = Record<MemoryType, number>;

/** The prototypes of each type for plain memories and for dialogue turns (see {@link SPEAKER_LABEL}). */
interface Prototypes {
  plain: Record<MemoryType, Float32Array>;
  dialogue: Record<MemoryType, Float32Array>;
}

/**
 * {@link MemoryTypeClassifier} by nearest prototype plus lexical cues, constructed with the service's
 * {@link Embedder}.
 *
 * Method: each type's prototype is the normalised mean embedding of {@link TYPE_PROTOTYPES} (embedded once,
 * lazily, on first use; a failed embed is retried next time). A memory's score for a type is
 * `cosine(memory, prototype) + CUE_WEIGHT × min(matching cues, MAX_CUES)` with the cues of
 * {@link TYPE_CUES} on the first {@link CUE_WINDOW_CHARS} characters. The highest score wins, except that
 * `fact` (the catch-all: preferences, settings, world knowledge) is chosen unless another type beats it by
 * `FACT_MARGIN`. Empty or whitespace content is a fact. When the caller passes `embedding` (the content's
 * embedding from the same embedder), it is used instead of embedding again; it must have the embedder's
 * dimension (else throws). Otherwise the content is embedded as remember embeds it (`embedDocument`, in
 * chunks). Throws only when the embedder throws. CPU time is linear in the content's length.
 *
 * A memory that starts with a speaker label ({@link SPEAKER_LABEL}, a dialogue turn) is compared with the
 * prototypes written as dialogue turns, and its cues read it without the label. A relationship or episode
 * without any of its cues (and an identity in a dialogue turn without one) loses {@link NO_CUE_PENALTY}.
 *
 * Accuracy with `use-lite@512`: on the 120 memories of `classifier-set.fixture.ts` (24 per type, dialogue
 * turns included) 58/60 on the tuning half and 53/60 on the held-out half (before dialogue prototypes and
 * the cue gate: 53/60 and 49/60); on the 60 of `labelled-memories.fixture.ts` 37/40 and 18/20. On LoCoMo's
 * 5,882 turns it picks fact 71 %, episode 11 %, skill 11 %, relationship 5.5 %, identity 1.5 % (before:
 * relationship 69 %, fact 0.6 %). Typical errors: plain attributes of the user ("the user is left-handed")
 * read as facts, technical facts as skills, and preferences phrased like identity.
 * With another embedder the weights above are untested; re-run prototype.memory-type-classifier.spec.ts.
 */
export class PrototypeMemoryTypeClassifier implements MemoryTypeClassifier {
  private readonly prototypes = new RetryingLoad(() => this.buildPrototypes());

  constructor(private readonly embedder: Embedder) {}

  async classify(content: string, embedding?: Float32Array): Promise<MemoryType> {
    if (content.trim() === '') return 'fact';
    const scores = await this.score(content, embedding);
    let best: MemoryType = 'fact';
    for (const type of Object.keys(scores) as MemoryType[]) {
      if (type !== 'fact' && scores[type] > scores[best]) best = type;
    }
    return best !== 'fact' && scores[best] - scores.fact >= FACT_MARGIN ? best : 'fact';
  }

  /** Per-type scores (cosine to prototype + cue bonus) without the fact margin. */
  async score(content: string, embedding?: Float32Array): Promise<TypeScores> {
    if (embedding && embedding.length !== this.embedder.dimension) {
      throw new Error(`embedding has ${embedding.length} dimensions, the embedder ${this.embedder.id} has ${this.embedder.dimension}`);
    }
    const [{ plain, dialogue }, vector] = await Promise.all([
      this.prototypes.get(),
      // Chunked as remember embeds content, so a long memory never reaches the model (or its tokeniser) whole.
      // Unscoped (not cached): the classifier is told no record; remember passes the embedding it made.
      embedding ? Promise.resolve(embedding) : embedDocument(this.embedder, content, {}),
    ]);
    let window = content.length > CUE_WINDOW_CHARS ? content.slice(0, CUE_WINDOW_CHARS) : content;
    // A dialogue turn is compared with dialogue-turn prototypes: the speaker label alone moves a USE-lite
    // embedding towards the relationship prototype (names) and away from fact and skill, which made 69 %
    // of LoCoMo's turns relationships. The cues read the turn without its label.
    const speaker = SPEAKER_LABEL.exec(window);
    const prototypes = speaker ? dialogue : plain;
    if (speaker) window = window.slice(speaker[0].length);
    const scores = {} as TypeScores;
    for (const type of Object.keys(prototypes) as MemoryType[]) {
      const cues = type === 'fact' ? [] : TYPE_CUES[type];
      const hits = cues.filter((cue) => cue.test(window)).length;
      const needsACue = NEEDS_A_CUE.has(type) || (speaker !== null && type === 'identity');
      scores[type] = dot(vector, prototypes[type]) + (hits === 0 && needsACue ? -NO_CUE_PENALTY : CUE_WEIGHT * Math.min(hits, MAX_CUES));
    }
    return scores;
  }

  private async buildPrototypes(): Promise<Prototypes> {
    const types = Object.keys(TYPE_PROTOTYPES) as MemoryType[];
    const plain = types.flatMap((type) => TYPE_PROTOTYPES[type]);
    const dialogue = plain.map((text, i) => `${PROTOTYPE_SPEAKERS[i % PROTOTYPE_SPEAKERS.length]}: ${text}`);
    // One embed call for all examples: a single batch for the model (as documents: off the event loop's thread where it can).
    const vectors = await this.embedder.embed([...plain, ...dialogue], { purpose: 'document' });
    const means = (from: number): Record<MemoryType, Float32Array> => {
      const result = {} as Record<MemoryType, Float32Array>;
      let offset = from;
      for (const type of types) {
        const count = TYPE_PROTOTYPES[type].length;
        const mean = new Float64Array(this.embedder.dimension);
        for (const v of vectors.slice(offset, offset + count)) for (let i = 0; i < mean.length; i++) mean[i] += v[i];
        offset += count;
        result[type] = normaliseL2(mean);
      }
      return result;
    };
    return { plain: means(0), dialogue: means(plain.length) };
  }
}
