import { type ArgumentMetadata, applyDecorators, Controller, Injectable, type PipeTransform, UseFilters, UsePipes } from '@nestjs/common';
import type { z } from 'zod';
import { ValidationError } from '@agent-memory/shared';
import { formatZodError } from '../validation/zod-format';
import { RpcDomainExceptionFilter } from './rpc-exception.filter';

/** Where {@link messageClass} keeps the schema on the class it makes. */
const MESSAGE_SCHEMA: unique symbol = Symbol.for('agent-memory.message-schema') as never;

/**
 * A class standing for one bus message contract: its instance type is the schema's output, and the
 * class carries the schema, so a handler names its contract once (`@Payload() m: RecallMessage`) and
 * {@link BusEdge} validates the message with it. Instances are never constructed: the class is a type
 * and a carrier of the schema (docs/architecture.md, "Service shape").
 */
export interface MessageClass<S extends z.ZodTypeAny> {
  new (): z.output<S>;
  readonly [MESSAGE_SCHEMA]: S;
}

/**
 * Makes the base of a message class: `export class RecallMessage extends messageClass(RecallMessageSchema) {}`.
 * `schema`: the zod schema of the message as the libs/shared contract gives it.
 */
export function messageClass<S extends z.ZodTypeAny>(schema: S): MessageClass<S> {
  class Message {
    static readonly [MESSAGE_SCHEMA] = schema;
  }
  return Message as unknown as MessageClass<S>;
}

/** The schema a message class carries, or undefined for any other declared type. */
export function schemaOfMessageClass(type: unknown): z.ZodTypeAny | undefined {
  return typeof type === 'function' ? ((type as unknown as Record<symbol, z.ZodTypeAny | undefined>)[MESSAGE_SCHEMA] ?? undefined) : undefined;
}

/**
 * Validates each `@Payload()` of a bus handler against the schema of its declared message class
 * ({@link messageClass}); the parsed value (defaults applied, unknown keys as the schema says) is what
 * the handler receives. Throws ValidationError naming the field. A payload declared with any other type
 * is a programming error (the message would reach the use case unchecked): it throws at the first
 * message, so a handler cannot silently skip validation. Other parameters (`@Ctx()`) pass through.
 */
@Injectable()
export class MessageClassPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    // Nest hands a microservice's `@Payload()` to pipes as type 'body'; `@Ctx()` comes as 'custom'.
    if (metadata.type !== 'body') return value;
    const schema = schemaOfMessageClass(metadata.metatype);
    if (!schema) throw new Error(`Bus handler payload declared as ${metadata.metatype?.name ?? 'an untyped value'}: declare it with a message class (messageClass(schema))`);
    const parsed = schema.safeParse(value);
    if (!parsed.success) throw new ValidationError(formatZodError(parsed.error));
    return parsed.data;
  }
}

/**
 * The class decorator of every bus handler (the edge of a service, docs/architecture.md "Service
 * shape"): a Nest controller whose thrown errors become the bus error form ({@link RpcDomainExceptionFilter})
 * and whose payloads are validated by their message classes ({@link MessageClassPipe}).
 *
 * ```ts
 * @BusEdge()
 * export class MemoryMessageHandler {
 *   @MessagePattern(SUBJECTS.memory.recall)
 *   recall(@Payload() m: RecallMessage) { return this.recall.execute(m); }
 * }
 * ```
 */
export function BusEdge(): ClassDecorator {
  return applyDecorators(Controller(), UseFilters(RpcDomainExceptionFilter), UsePipes(MessageClassPipe));
}
