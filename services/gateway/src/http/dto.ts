import { createZodDto } from 'nestjs-zod';
import {
  ClaimAgentBodySchema,
  CreateAgentBodySchema,
  CreateRecordBodySchema,
  ForgetTargetSchema,
  PasskeyRegisterOptionsBodySchema,
  PasskeyVerifyBodySchema,
  RawPutBodySchema,
  RecallBodySchema,
  RememberBodySchema,
  RotateKeyBodySchema,
  UpdateRecordBodySchema,
  WalletChallengeBodySchema,
  WriteFileBodySchema,
} from '@agent-memory/shared';

/** DTO classes generated from the shared zod schemas: the OpenAPI document's request bodies. */
export class CreateAgentDto extends createZodDto(CreateAgentBodySchema) {}
export class WalletChallengeDto extends createZodDto(WalletChallengeBodySchema) {}
export class CreateRecordDto extends createZodDto(CreateRecordBodySchema) {}
export class UpdateRecordDto extends createZodDto(UpdateRecordBodySchema) {}
export class RememberDto extends createZodDto(RememberBodySchema) {}
export class RecallDto extends createZodDto(RecallBodySchema) {}
export class ForgetDto extends createZodDto(ForgetTargetSchema) {}
export class WriteFileDto extends createZodDto(WriteFileBodySchema) {}
export class RawPutDto extends createZodDto(RawPutBodySchema) {}
export class RotateKeyDto extends createZodDto(RotateKeyBodySchema) {}
export class ClaimAgentDto extends createZodDto(ClaimAgentBodySchema) {}
export class PasskeyRegisterOptionsDto extends createZodDto(PasskeyRegisterOptionsBodySchema) {}
export class PasskeyVerifyDto extends createZodDto(PasskeyVerifyBodySchema) {}
