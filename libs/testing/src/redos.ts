import { checkSync, type Diagnostics } from 'recheck';

/**
 * Static ReDoS check of a regular expression with recheck (makenowjust-labs/recheck: automaton analysis
 * of the backtracking engine, or fuzzing with a fixed seed where the automaton would be too large).
 * Returns null when recheck proves (or, by fuzzing, finds) the pattern's matching time linear or
 * constant in the input length, as `RegExp.prototype.exec` runs it (an unanchored pattern is tried at
 * every start position); otherwise a sentence naming the pattern, the complexity and recheck's attack
 * string. "unknown" (the analysis timed out) also counts as a problem: only proven patterns pass.
 * Uses recheck's native binary when the platform has one, its pure-JS backend otherwise (slower).
 */
export function regexComplexityProblem(pattern: RegExp): string | null {
  const result: Diagnostics = checkSync(pattern.source, pattern.flags, { randomSeed: 42, timeout: 60_000 });
  if (result.status === 'safe') return null;
  if (result.status === 'vulnerable') {
    return `/${pattern.source}/${pattern.flags} is ${result.complexity.summary}; attack: ${result.attack.pattern}`;
  }
  return `/${pattern.source}/${pattern.flags}: recheck could not decide (${result.error.kind})`;
}

/** The problems of {@link regexComplexityProblem} for a list of named patterns (empty when all are linear). */
export function regexComplexityProblems(patterns: Readonly<Record<string, RegExp>>): string[] {
  return Object.entries(patterns).flatMap(([name, pattern]) => {
    const problem = regexComplexityProblem(pattern);
    return problem ? [`${name}: ${problem}`] : [];
  });
}
