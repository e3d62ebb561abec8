import { Inject, Injectable } from '@nestjs/common';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { RATE_LIMITS, RateLimitedError } from '@agent-memory/shared';
import { GATEWAY_OPTIONS, type GatewayOptions } from '../gateway.options';
import { type GatewayRequest, stateOf } from '../auth/request-context';

/**
 * What the service needs of one policy's limiter (a `rate-limiter-flexible` limiter): its limit per window,
 * and `consume`, which resolves a `RateLimiterRes` when admitted and rejects with one when over the limit.
 */
export interface PolicyLimiter {
  readonly points: number;
  consume(key: string | number, points?: number): Promise<RateLimiterRes>;
}

/** The limiters of docs/api.md ("Rate limits"), one per policy; the store (memory or Redis) is chosen by the composition root. */
export interface RateLimiters {
  agent: PolicyLimiter;
  recordWrite: PolicyLimiter;
  recordQuery: PolicyLimiter;
  anonymous: PolicyLimiter;
}
export const RATE_LIMITERS = Symbol('RateLimiters');

/** Names of the policies as they appear in the `RateLimit-Policy` header. */
export const POLICY_NAMES = { agent: 'agent', recordWrite: 'record-write', recordQuery: 'record-query', anonymous: 'client' } as const;

/**
 * Applies the rate limits (100/min per agent; 30 writes/min and 60 queries/min per record) over
 * sliding 60-second windows (docs/api.md, "Rate limits"; see ./sliding-window.ts), and records each policy's state on the request for the
 * `RateLimit-Policy` / `RateLimit` headers (IETF httpapi ratelimit-headers draft). Over a limit:
 * RATE_LIMITED with `retryAfterSeconds`.
 */
@Injectable()
export class RateLimitService {
  constructor(
    @Inject(RATE_LIMITERS) private readonly limiters: RateLimiters,
    @Inject(GATEWAY_OPTIONS) private readonly options: GatewayOptions,
  ) {}

  async consume(req: GatewayRequest, policy: keyof RateLimiters, key: string): Promise<void> {
    if (!this.options.rateLimitsEnabled) return;
    const limiter = this.limiters[policy];
    const state = stateOf(req);
    state.rateLimit ??= [];
    try {
      const res = await limiter.consume(key, 1);
      state.rateLimit.push({ policy: POLICY_NAMES[policy], limit: limiter.points, remaining: res.remainingPoints, resetSeconds: Math.ceil(res.msBeforeNext / 1000) });
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      const reset = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      state.rateLimit.push({ policy: POLICY_NAMES[policy], limit: limiter.points, remaining: 0, resetSeconds: reset });
      const what = {
        agent: `${RATE_LIMITS.agentPerMinute} requests per minute per agent`,
        recordWrite: `${RATE_LIMITS.recordWritesPerMinute} writes per minute per record`,
        recordQuery: `${RATE_LIMITS.recordQueriesPerMinute} queries per minute per record`,
        anonymous: `${limiter.points} requests per minute per client`,
      }[policy];
      throw new RateLimitedError(`Rate limit exceeded: ${what}; retry in ${reset} s`, reset);
    }
  }
}

/** Response headers for the policies applied to a request. */
export function rateLimitHeaders(req: GatewayRequest): Record<string, string> {
  const applied = req.gateway?.rateLimit;
  if (!applied || applied.length === 0) return {};
  return {
    'RateLimit-Policy': applied.map((p) => `"${p.policy}";q=${p.limit};w=${RATE_LIMITS.windowSeconds}`).join(', '),
    RateLimit: applied.map((p) => `"${p.policy}";r=${p.remaining};t=${p.resetSeconds}`).join(', '),
  };
}
