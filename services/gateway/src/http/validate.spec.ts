import type { ArgumentMetadata } from '@nestjs/common';
import { ValidationError } from '@agent-memory/shared';
import { ContextQueryDto, CreateRecordDto, EmptyBodyDto, RotateKeyDto } from './dto';
import { RequestValidationPipe } from './validate';

const pipe = new RequestValidationPipe();
const body = (metatype: ArgumentMetadata['metatype']): ArgumentMetadata => ({ type: 'body', metatype });
const query = (metatype: ArgumentMetadata['metatype']): ArgumentMetadata => ({ type: 'query', metatype });

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return (err as ValidationError).message;
  }
  throw new Error('not refused');
}

describe('RequestValidationPipe', () => {
  it('parses a DTO-typed body or query with its schema and hands over the output', () => {
    expect(pipe.transform({ name: 'notes' }, body(CreateRecordDto))).toMatchObject({ name: 'notes' });
    expect(pipe.transform({}, query(ContextQueryDto))).toEqual({ limit: 50 });
  });

  it('refuses a missing or null body, an invalid field, naming where', () => {
    expect(refusal(() => pipe.transform(undefined, body(CreateRecordDto)))).toBe('body: a JSON object is required (Content-Type: application/json)');
    expect(refusal(() => pipe.transform(null, body(CreateRecordDto)))).toBe('body: a JSON object is required (Content-Type: application/json)');
    expect(refusal(() => pipe.transform({ limit: 'x' }, query(ContextQueryDto)))).toMatch(/^limit: /);
    expect(refusal(() => pipe.transform({ extra: 1 }, body(EmptyBodyDto)))).toMatch(/^body/);
  });

  it('reads an omitted omittable body as {}, but not a null one', () => {
    expect(pipe.transform(undefined, body(EmptyBodyDto))).toEqual({});
    expect(pipe.transform(undefined, body(RotateKeyDto))).toEqual(expect.any(Object));
    expect(refusal(() => pipe.transform(null, body(RotateKeyDto)))).toBe('body: a JSON object is required (Content-Type: application/json)');
  });

  it('leaves every other parameter untouched', () => {
    expect(pipe.transform('rec_1', { type: 'param', metatype: String, data: 'recordId' })).toBe('rec_1');
    expect(pipe.transform({ any: 1 }, body(Object))).toEqual({ any: 1 });
    expect(pipe.transform({ any: 1 }, { type: 'custom', metatype: CreateRecordDto })).toEqual({ any: 1 });
  });
});
