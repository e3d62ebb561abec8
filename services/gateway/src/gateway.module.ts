import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR } from '@nestjs/core';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { RATE_LIMITS } from '@agent-memory/shared';
import { AgentKeyGuard } from './auth/agent-key.guard';
import { RecordAccessGuard } from './auth/record-access.guard';
import { InMemoryReplayCache, REPLAY_CACHE } from './auth/replay-cache';
import { WalletSignatureGuard } from './auth/wallet-signature.guard';
import { UsageRecorder } from './billing/usage-recorder';
import { GATEWAY_OPTIONS, type GatewayOptions } from './gateway.options';
import { AgentsController } from './http/agents.controller';
import { EnvelopeInterceptor } from './http/envelope.interceptor';
import { GatewayExceptionFilter } from './http/error.filter';
import { FilesController } from './http/files.controller';
import { HealthController, READINESS_PROBE, type ReadinessProbe } from './http/health.controller';
import { MemoryController } from './http/memory.controller';
import { RecordsController } from './http/records.controller';
import { AgentRateLimitGuard, AnonymousRateLimitGuard, RecordRateLimitGuard } from './rate-limit/rate-limit.guards';
import { RATE_LIMITERS, type RateLimiters, RateLimitService } from './rate-limit/rate-limit.service';

/** In-memory limiters (standalone); cluster mode passes Redis-backed ones. */
export function inMemoryRateLimiters(anonymousPerMinute: number): RateLimiters {
  const duration = RATE_LIMITS.windowSeconds;
  return {
    agent: new RateLimiterMemory({ keyPrefix: 'agent', points: RATE_LIMITS.agentPerMinute, duration }),
    recordWrite: new RateLimiterMemory({ keyPrefix: 'record-write', points: RATE_LIMITS.recordWritesPerMinute, duration }),
    recordQuery: new RateLimiterMemory({ keyPrefix: 'record-query', points: RATE_LIMITS.recordQueriesPerMinute, duration }),
    anonymous: new RateLimiterMemory({ keyPrefix: 'client', points: anonymousPerMinute, duration }),
  };
}

/**
 * The HTTP gateway (DESIGN.md §1) and its composition root: authentication, rate limits, validation
 * against the shared schemas, one bus request per call, the usage charge, and the spec's envelopes.
 */
@Module({})
export class GatewayModule {
  static forRoot(options: GatewayOptions, adapters: { rateLimiters: RateLimiters; readiness: ReadinessProbe }): DynamicModule {
    return {
      module: GatewayModule,
      controllers: [AgentsController, RecordsController, MemoryController, FilesController, HealthController],
      providers: [
        { provide: GATEWAY_OPTIONS, useValue: options },
        { provide: RATE_LIMITERS, useValue: adapters.rateLimiters },
        { provide: REPLAY_CACHE, useValue: new InMemoryReplayCache() },
        { provide: READINESS_PROBE, useValue: adapters.readiness },
        { provide: APP_FILTER, useClass: GatewayExceptionFilter },
        { provide: APP_INTERCEPTOR, useClass: EnvelopeInterceptor },
        RateLimitService,
        UsageRecorder,
        AgentKeyGuard,
        WalletSignatureGuard,
        RecordAccessGuard,
        AgentRateLimitGuard,
        AnonymousRateLimitGuard,
        RecordRateLimitGuard,
      ],
    };
  }
}
