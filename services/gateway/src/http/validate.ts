import { type ArgumentMetadata, Injectable, type PipeTransform } from '@nestjs/common';
import type { ZodDto } from 'nestjs-zod';
import type { z } from 'zod';
import { ValidationError } from '@agent-memory/shared';
import { formatZodError } from '@agent-memory/platform';

/**
 * Parses an HTTP body or query with its contract schema; VALIDATION_ERROR naming the field otherwise.
 * `where` prefixes the message (`body`, `query`); a missing (or `null`) body is refused with "body: a
 * JSON object is required (Content-Type: application/json)".
 */
export function validate<S extends z.ZodTypeAny>(schema: S, value: unknown, where: 'body' | 'query'): z.output<S> {
  if (where === 'body' && (value === undefined || value === null)) {
    throw new ValidationError('body: a JSON object is required (Content-Type: application/json)');
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new ValidationError(formatZodError(parsed.error, where));
  return parsed.data;
}

/**
 * The gateway's one request pipe (registered for every route by GatewayModule): a `@Body()` or
 * `@Query()` parameter declared with a DTO class of ./dto.ts is parsed with that class's shared zod
 * schema ({@link validate}), and the handler receives the schema's output (defaults applied,
 * transforms done). A DTO class with a static `omittable = true` accepts a missing body as `{}`.
 * Every other parameter passes through untouched.
 */
@Injectable()
export class RequestValidationPipe implements PipeTransform {
  transform(value: unknown, { type, metatype }: ArgumentMetadata): unknown {
    const dto = metatype as (Partial<ZodDto> & { omittable?: boolean }) | undefined;
    if ((type !== 'body' && type !== 'query') || !dto?.isZodDto) return value;
    const omitted = type === 'body' && value === undefined && dto.omittable === true;
    return validate(dto.schema as z.ZodTypeAny, omitted ? {} : value, type);
  }
}
