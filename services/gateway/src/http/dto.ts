import { createZodDto } from 'nestjs-zod';
import {
  ClaimAgentBodySchema,
  ContextQuerySchema,
  ListFilesQuerySchema,
  ListMemoriesQuerySchema,
  CreateAgentBodySchema,
  CreateRecordBodySchema,
  DeleteRecordQuerySchema,
  EmptyBodySchema,
  ListRecordsQuerySchema,
  PasskeyRegisterOptionsBodySchema,
  PasskeyVerifyBodySchema,
  SiweNonceBodySchema,
  SiweVerifyBodySchema,
  RawGetQuerySchema,
  RawPutBodySchema,
  ReadFileQuerySchema,
  RecallBodySchema,
  RememberBodySchema,
  RotateKeyBodySchema,
  TopUpBodySchema,
  UpdateRecordBodySchema,
  UsageQuerySchema,
  WalletChallengeBodySchema,
  WriteFileBodySchema,
} from '@agent-memory/shared';

/*
 * The request bodies and queries of the HTTP interface (docs/api.md), one class per shared zod schema.
 * A handler declares `@Body() body: RecallDto` or `@Query() query: UsageQueryDto`: the gateway's request
 * pipe (RequestValidationPipe, ./validate.ts) parses the value with the class's schema, and the OpenAPI
 * document (`/openapi.json`, ../openapi/route-table.ts) describes it from the same schema. `static omittable = true`: the body may be left
 * out, and then reads as `{}`.
 */

export class CreateAgentDto extends createZodDto(CreateAgentBodySchema) {}
export class WalletChallengeDto extends createZodDto(WalletChallengeBodySchema) {}
export class CreateRecordDto extends createZodDto(CreateRecordBodySchema) {}
export class UpdateRecordDto extends createZodDto(UpdateRecordBodySchema) {}
export class RememberDto extends createZodDto(RememberBodySchema) {}
export class RecallDto extends createZodDto(RecallBodySchema) {}
export class WriteFileDto extends createZodDto(WriteFileBodySchema) {}
export class RawPutDto extends createZodDto(RawPutBodySchema) {}
export class RotateKeyDto extends createZodDto(RotateKeyBodySchema) {
  static readonly omittable = true;
}
export class ClaimAgentDto extends createZodDto(ClaimAgentBodySchema) {}
export class PasskeyRegisterOptionsDto extends createZodDto(PasskeyRegisterOptionsBodySchema) {
  static readonly omittable = true;
}
export class PasskeyVerifyDto extends createZodDto(PasskeyVerifyBodySchema) {}
export class SiweNonceDto extends createZodDto(SiweNonceBodySchema) {}
export class SiweVerifyDto extends createZodDto(SiweVerifyBodySchema) {}
export class TopUpDto extends createZodDto(TopUpBodySchema) {}
/** The body of the actions that take none: absent or `{}` (any field: VALIDATION_ERROR). */
export class EmptyBodyDto extends createZodDto(EmptyBodySchema) {
  static readonly omittable = true;
}

export class ListRecordsQueryDto extends createZodDto(ListRecordsQuerySchema) {}
export class DeleteRecordQueryDto extends createZodDto(DeleteRecordQuerySchema) {}
export class ContextQueryDto extends createZodDto(ContextQuerySchema) {}
export class ListMemoriesQueryDto extends createZodDto(ListMemoriesQuerySchema) {}
export class ListFilesQueryDto extends createZodDto(ListFilesQuerySchema) {}
export class ReadFileQueryDto extends createZodDto(ReadFileQuerySchema) {}
export class RawGetQueryDto extends createZodDto(RawGetQuerySchema) {}
export class UsageQueryDto extends createZodDto(UsageQuerySchema) {}
