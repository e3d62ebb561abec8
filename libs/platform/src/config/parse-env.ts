import { z } from 'zod';

/** Thrown at start-up when an environment variable is missing or invalid; names the variable. */
export class ConfigError extends Error {}

/**
 * Parses environment variables with a zod object schema whose keys are the variable names (the one
 * place that reads `process.env`; docs/configuration.md lists every variable). Throws {@link ConfigError} listing every bad
 * variable, e.g. `PORT: must be a number from 1 to 65535 (got "abc")`.
 */
export function parseEnv<S extends z.ZodObject>(schema: S, env: NodeJS.ProcessEnv = process.env): z.output<S> {
  const input: Record<string, string | undefined> = {};
  for (const key of Object.keys(schema.shape)) {
    const value = env[key];
    input[key] = value === '' ? undefined : value;
  }
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const name = String(issue.path[0] ?? '?');
      return `${name}: ${issue.message} (got ${JSON.stringify(input[name] ?? null)})`;
    });
    throw new ConfigError(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  return parsed.data;
}

/** Environment helpers: ports, booleans and enums written as strings. */
export const env = {
  port: (fallback: number) => z.coerce.number().int().min(1, 'must be a number from 1 to 65535').max(65535, 'must be a number from 1 to 65535').default(fallback),
  int: (fallback: number, min = 0) => z.coerce.number().int().min(min).default(fallback),
  bool: (fallback: boolean) =>
    z
      .enum(['true', 'false', '1', '0', 'on', 'off'], { message: 'must be true or false' })
      .default(fallback ? 'true' : 'false')
      .transform((v) => v === 'true' || v === '1' || v === 'on'),
};
