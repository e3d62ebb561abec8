import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Principal as AgentPrincipal } from '@agent-memory/shared';
import { type GatewayRequest, type HumanOnRequest, humanOf, principalOf } from './request-context';

/**
 * The agent a request acts for (agent id, key environment, mode), as the route's authentication guard
 * set it: `handler(@Principal() principal: Principal)`. A route without an authenticating guard is a
 * programming error (thrown, so a 500).
 */
export const Principal = createParamDecorator((_data: unknown, context: ExecutionContext): AgentPrincipal => principalOf(context.switchToHttp().getRequest<GatewayRequest>()));
/** The type of the {@link Principal} parameter: the shared contract's principal. */
export type Principal = AgentPrincipal;

/** The signed-in human (`Authorization: Passkey`), as HumanSessionGuard set it: `handler(@SignedInHuman() human: SignedInHuman)`. */
export const SignedInHuman = createParamDecorator((_data: unknown, context: ExecutionContext): HumanOnRequest => humanOf(context.switchToHttp().getRequest<GatewayRequest>()));
/** The type of the {@link SignedInHuman} parameter: the human and the session it presented ({@link HumanOnRequest}). */
export type SignedInHuman = HumanOnRequest;
