import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { type Observable, throwError } from 'rxjs';
import { DomainError, SUBJECTS } from '@agent-memory/shared';
import { currentBusHeaders } from './bus-context';

/**
 * Request subjects whose message names the agent it acts for (`agentId` in the body) and that the
 * gateway sends only for an authenticated caller: the body's agent must be the principal the gateway
 * vouched for in the bus headers (signed on NATS: docs/configuration.md, "Bus authentication").
 * `optional`: the agents service also sends it, for the agent it is creating, before anyone is
 * authenticated; a principal, when present, must still match.
 */
export const PRINCIPAL_BOUND_SUBJECTS: Readonly<Record<string, 'required' | 'optional'>> = {
  [SUBJECTS.records.create]: 'optional',
  [SUBJECTS.records.list]: 'required',
  [SUBJECTS.records.get]: 'required',
  [SUBJECTS.records.update]: 'required',
  [SUBJECTS.records.delete]: 'required',
  [SUBJECTS.records.resolveAccess]: 'required',
  [SUBJECTS.memory.remember]: 'required',
  [SUBJECTS.memory.recall]: 'required',
  [SUBJECTS.memory.forget]: 'required',
  [SUBJECTS.memory.context]: 'required',
  [SUBJECTS.files.write]: 'required',
  [SUBJECTS.files.read]: 'required',
  [SUBJECTS.files.rawPut]: 'required',
  [SUBJECTS.files.rawGet]: 'required',
  [SUBJECTS.agents.get]: 'required',
  [SUBJECTS.agents.listKeys]: 'required',
  [SUBJECTS.agents.rotateKey]: 'required',
  [SUBJECTS.agents.revokeKey]: 'required',
  [SUBJECTS.humans.releaseClaimByAgent]: 'required',
  [SUBJECTS.humans.releaseClaim]: 'required',
  [SUBJECTS.billing.usage]: 'required',
  [SUBJECTS.billing.balance]: 'required',
  [SUBJECTS.billing.reserve]: 'required',
  [SUBJECTS.billing.recordUsage]: 'required',
  [SUBJECTS.billing.claimPayment]: 'required',
  [SUBJECTS.billing.settlePaidCall]: 'required',
  [SUBJECTS.billing.credit]: 'required',
};

/**
 * Why a message on `subject` with body `data` may not run under the current bus principal, or
 * undefined when it may. Pure: reads only its arguments.
 */
export function principalRefusal(subject: string, data: unknown, principalAgentId: string | undefined): DomainError | undefined {
  const rule = PRINCIPAL_BOUND_SUBJECTS[subject];
  if (!rule) return undefined;
  const bodyAgentId = (data as { agentId?: unknown } | null)?.agentId;
  if (principalAgentId === undefined) {
    return rule === 'required' ? new DomainError('UNAUTHORIZED', `${subject} needs the principal the gateway authenticated`) : undefined;
  }
  if (bodyAgentId !== principalAgentId) return new DomainError('FORBIDDEN', `The message acts for another agent than its principal (${subject})`);
  return undefined;
}

/**
 * Bus-side guard of both transports (in process and NATS; after the transport's context interceptor):
 * a message on a {@link PRINCIPAL_BOUND_SUBJECTS} subject runs only when its body's `agentId` is the
 * principal of the bus headers. On NATS those headers are trusted only once their gateway signature
 * verified (`DrainingNatsServer`); in process they come from the gateway's own request context. Services
 * thus act for the authenticated agent, never for an id some caller wrote into a message.
 */
@Injectable()
export class BusPrincipalInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'rpc') return next.handle();
    const rpc = context.switchToRpc();
    const subject = rpc.getContext<{ getSubject?: () => string }>().getSubject?.();
    if (typeof subject !== 'string') return next.handle();
    const refusal = principalRefusal(subject, rpc.getData(), currentBusHeaders()?.agentId);
    return refusal ? throwError(() => refusal) : next.handle();
  }
}
