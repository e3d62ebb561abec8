import { DomainError } from '@agent-memory/shared';

/**
 * Awaits `promise` and names how it ended: `'none'` when it resolved, the error's code (`NOT_FOUND`,
 * `RATE_LIMITED`, …; docs/api.md, "Errors") when it rejected with a {@link DomainError}; any other
 * rejection is rethrown. Lets race tests compare the outcomes of concurrent calls as strings.
 */
export async function domainCode(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'none';
  } catch (err) {
    if (err instanceof DomainError) return err.code;
    throw err;
  }
}
