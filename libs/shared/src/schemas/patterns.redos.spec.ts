import { regexComplexityProblem } from '@agent-memory/testing';
import { z } from 'zod';
import * as shared from '../index';

/**
 * Every regular expression a shared schema validates with (`.regex()` checks and zod's own string
 * formats such as base64 and datetime), found by walking the exported schemas.
 */
function validationPatterns(): Map<string, RegExp> {
  const found = new Map<string, RegExp>();
  const seen = new Set<unknown>();
  type Def = Record<string, unknown> & { checks?: { _zod?: { def?: { pattern?: unknown } } }[]; shape?: Record<string, unknown>; options?: unknown[]; items?: unknown[] };
  const walk = (schema: unknown): void => {
    if (!(schema instanceof z.ZodType) || seen.has(schema)) return;
    seen.add(schema);
    const def = (schema as unknown as { _zod: { def: Def } })._zod.def;
    if (def.format && def.pattern instanceof RegExp) found.set(`/${def.pattern.source}/${def.pattern.flags}`, def.pattern);
    for (const check of def.checks ?? []) {
      const pattern = check._zod?.def?.pattern;
      if (pattern instanceof RegExp) found.set(`/${pattern.source}/${pattern.flags}`, pattern);
    }
    for (const key of ['innerType', 'in', 'out', 'element', 'schema', 'valueType', 'keyType', 'left', 'right']) walk(def[key]);
    for (const option of def.options ?? []) walk(option);
    for (const item of def.items ?? []) walk(item);
    for (const field of Object.values(def.shape ?? {})) walk(field);
  };
  for (const value of Object.values(shared)) walk(value);
  return found;
}

describe('patterns of the shared schemas', () => {
  it('are all linear in the input (recheck), so no field of any request can cost super-linear time', () => {
    const patterns = validationPatterns();
    // ids, names without control characters, wallet addresses, base64, timestamps, media types, ...
    expect(patterns.size).toBeGreaterThanOrEqual(10);
    const problems = [...patterns.values()].map(regexComplexityProblem).filter((p) => p !== null);
    expect(problems).toEqual([]);
  });
});
