import { Logger } from '@nestjs/common';
import { DomainError, domainErrorFromBus, RateLimitedError } from '@agent-memory/shared';
import { DeadlineExceededError } from './bus-context';
import { toBusError } from './rpc-exception.filter';

/** Errors keep what the gateway needs across the bus wire form (JSON): the code, and Retry-After for a 429. */
describe('bus wire form of errors', () => {
  const logger = new Logger('test');
  const roundTrip = (err: unknown) => domainErrorFromBus(JSON.parse(JSON.stringify(toBusError(err, logger))));

  it('a RATE_LIMITED error keeps its retryAfterSeconds (the Retry-After of a busy idempotency key)', () => {
    const back = roundTrip(new RateLimitedError('idempotency_key: a request with this key is still in progress; retry after 7 s with the same key', 7));
    expect(back).toBeInstanceOf(RateLimitedError);
    expect(back).toMatchObject({ code: 'RATE_LIMITED', retryAfterSeconds: 7, message: expect.stringMatching(/in progress/) });
  });

  it('other domain errors keep code and message; a passed deadline is an INTERNAL_ERROR', () => {
    expect(roundTrip(new DomainError('NOT_FOUND', 'gone'))).toMatchObject({ code: 'NOT_FOUND', message: 'gone' });
    expect(roundTrip(new DeadlineExceededError(Date.now()))).toMatchObject({ code: 'INTERNAL_ERROR', message: expect.stringMatching(/nothing was written/) });
  });
});
