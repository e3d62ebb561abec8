import type { PipeTransform } from '@nestjs/common';
import type { z } from 'zod';
import { ValidationError } from '@agent-memory/shared';
import { formatZodError } from './zod-format';

/**
 * Validates a bus message where it is consumed against its contract schema; throws
 * ValidationError naming the field.
 */
export class MessagePipe<S extends z.ZodTypeAny> implements PipeTransform<unknown, z.output<S>> {
  constructor(private readonly schema: S) {}

  transform(value: unknown): z.output<S> {
    const parsed = this.schema.safeParse(value);
    if (!parsed.success) throw new ValidationError(formatZodError(parsed.error));
    return parsed.data;
  }
}
