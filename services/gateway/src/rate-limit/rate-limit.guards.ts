import { type CanActivate, type ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { type GatewayRequest, humanOf, principalOf } from '../auth/request-context';
import { RateLimitService } from './rate-limit.service';

/** Per-record policy of a route: `write` (remember, write file) or `query` (recall, context). */
export type RecordRateClass = 'write' | 'query';
const RECORD_RATE_CLASS = 'agent-memory:record-rate-class';
export const RecordRateLimit = (cls: RecordRateClass) => SetMetadata(RECORD_RATE_CLASS, cls);

/** 100 requests per minute per agent (docs/api.md, "Rate limits": all authenticated endpoints). Runs right after authentication. */
@Injectable()
export class AgentRateLimitGuard implements CanActivate {
  constructor(private readonly limits: RateLimitService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<GatewayRequest>();
    await this.limits.consume(req, 'agent', principalOf(req).agentId);
    return true;
  }
}

/**
 * A signed-in human's routes: the same 100 requests per minute as an agent (docs/api.md, "Rate limits"),
 * counted per human under the agent policy (key `human:<humanId>`). Runs right after HumanSessionGuard,
 * which sets the human.
 */
@Injectable()
export class HumanRateLimitGuard implements CanActivate {
  constructor(private readonly limits: RateLimitService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<GatewayRequest>();
    await this.limits.consume(req, 'agent', `human:${humanOf(req).humanId}`);
    return true;
  }
}

/** Per-client limit of calls without an agent (create agent); keyed by the client address. */
@Injectable()
export class AnonymousRateLimitGuard implements CanActivate {
  constructor(private readonly limits: RateLimitService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<GatewayRequest>();
    await this.limits.consume(req, 'anonymous', req.ip);
    return true;
  }
}

/** 30 writes or 60 queries per minute per record; runs after the record access check, so nobody spends another agent's quota. */
@Injectable()
export class RecordRateLimitGuard implements CanActivate {
  constructor(
    private readonly limits: RateLimitService,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const cls = this.reflector.get<RecordRateClass | undefined>(RECORD_RATE_CLASS, context.getHandler());
    if (!cls) return true;
    const req = context.switchToHttp().getRequest<GatewayRequest>();
    const recordId = (req.params as Record<string, string>).recordId;
    await this.limits.consume(req, cls === 'write' ? 'recordWrite' : 'recordQuery', recordId);
    return true;
  }
}
