/**
 * Every Prisma model of every service round-trips through its Prisma Client on a freshly migrated
 * database, once on the machine's PostgreSQL (cluster) and once on PGlite (standalone), so that the Prisma 7
 * client works on both database adapters (docs/architecture.md, "Ports and adapters").
 *
 * Generic, so a model added later is covered without touching this file: the models come from the
 * generated client (`Prisma.ModelName`, and the client's runtime data model for field kinds and
 * types); Prisma 7's runtime data model carries no modifiers, so requiredness, lists, defaults, ids and
 * relation keys are read from the service's schema.prisma (and checked to describe the same fields).
 * Each model gets a row with every writable scalar set (parents created first for its relations), is
 * created, read back by its primary key and compared field by field, then deleted. A second, minimal
 * row (only the required fields without a default) checks that defaults are applied and optional
 * fields read back as null. Columns with SQL CHECK constraints get their values from OVERRIDES.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Database, PgDatabase, PgliteDatabase } from '@agent-memory/platform';
import { createTestDatabase } from '@agent-memory/testing';
import { Prisma as AgentsPrisma } from '../../services/agents/src/persistence/generated/client';
import { openAgentsPrisma } from '../../services/agents/src/persistence/prisma';
import { Prisma as BillingPrisma } from '../../services/billing/src/persistence/generated/client';
import { openBillingPrisma } from '../../services/billing/src/persistence/prisma';
import { Prisma as FilesPrisma } from '../../services/files/src/persistence/generated/client';
import { openFilesPrisma } from '../../services/files/src/persistence/prisma';
import { Prisma as MemoryPrisma } from '../../services/memory/src/persistence/generated/client';
import { openMemoryPrisma } from '../../services/memory/src/persistence/prisma';
import { Prisma as RecordsPrisma } from '../../services/records/src/persistence/generated/client';
import { openRecordsPrisma } from '../../services/records/src/persistence/prisma';

type Delegate = { create(args: any): Promise<any>; findUnique(args: any): Promise<any>; delete(args: any): Promise<any> };
type AnyClient = { $disconnect(): Promise<void>; _runtimeDataModel: RuntimeDataModel } & Record<string, unknown>;
type Row = Record<string, unknown>;

interface RuntimeField {
  name: string;
  kind: 'scalar' | 'object' | 'enum' | 'unsupported';
  type: string;
  relationName?: string;
}
interface RuntimeDataModel {
  models: Record<string, { fields: RuntimeField[] }>;
  enums: Record<string, { values: { name: string }[] }>;
}

interface Service {
  name: string;
  open(db: Database): Promise<unknown>;
  modelNames: string[];
}

const SERVICES: Service[] = [
  { name: 'agents', open: openAgentsPrisma, modelNames: Object.values(AgentsPrisma.ModelName) },
  { name: 'records', open: openRecordsPrisma, modelNames: Object.values(RecordsPrisma.ModelName) },
  { name: 'memory', open: openMemoryPrisma, modelNames: Object.values(MemoryPrisma.ModelName) },
  { name: 'files', open: openFilesPrisma, modelNames: Object.values(FilesPrisma.ModelName) },
  { name: 'billing', open: openBillingPrisma, modelNames: Object.values(BillingPrisma.ModelName) },
];

/** Values for columns the migrations constrain with CHECK (grep CHECK services/\*\/prisma/migrations), keyed "service.Model.field". */
const OVERRIDES: Record<string, unknown> = {
  'billing.Balance.environment': 'live',
  'billing.Reservation.status': 'reserved',
  'billing.Payment.purpose': 'top_up',
  'billing.Payment.status': 'claimed',
  'billing.Credit.reason': 'sandbox_grant',
};

// ---------------------------------------------------------------- schema.prisma: the modifiers the runtime data model lacks

interface FieldSpec {
  name: string;
  type: string;
  list: boolean;
  optional: boolean;
  hasDefault: boolean;
  /** `@default(autoincrement())` / `dbgenerated(...)`: the database chooses the value. */
  dbGenerated: boolean;
  nativeType?: string;
  relation?: { fields: string[]; references: string[] };
}
interface ModelSpec {
  name: string;
  fields: Map<string, FieldSpec>;
  primaryKey: string[];
  /** Prisma's name of the compound id in `where` (`a_b`, or `@@id(name: ...)`). */
  primaryKeyName?: string;
}
interface SchemaSpec {
  models: Map<string, ModelSpec>;
  enums: Map<string, string[]>;
  /** `model X {` declarations counted in the file. */
  declaredModels: number;
}

const listOf = (s: string) =>
  s
    .split(',')
    .map((x) => x.trim().replace(/\(.*\)$/, ''))
    .filter(Boolean);

function parseSchema(file: string): SchemaSpec {
  const text = readFileSync(file, 'utf8');
  const models = new Map<string, ModelSpec>();
  const enums = new Map<string, string[]>();
  const lines = (body: string) =>
    body
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('//'));
  for (const [, kind, name, body] of text.matchAll(/^(model|enum)\s+(\w+)\s*\{([\s\S]*?)^\}/gm)) {
    if (kind === 'enum') {
      enums.set(name, lines(body).filter((l) => !l.startsWith('@@')).map((l) => l.split(/\s+/)[0]));
      continue;
    }
    const model: ModelSpec = { name, fields: new Map(), primaryKey: [] };
    for (const line of lines(body)) {
      const block = /^@@id\((.*)\)$/.exec(line);
      if (block) {
        const fields = /fields:\s*\[([^\]]*)\]/.exec(block[1]) ?? /^\[([^\]]*)\]/.exec(block[1]);
        model.primaryKey = listOf(fields?.[1] ?? '');
        model.primaryKeyName = /name:\s*"(\w+)"/.exec(block[1])?.[1] ?? model.primaryKey.join('_');
        continue;
      }
      if (line.startsWith('@@')) continue;
      const m = /^(\w+)\s+(\w+)(\[\])?(\?)?\s*(.*)$/.exec(line);
      if (!m) throw new Error(`${file}: cannot read field line of ${name}: ${line}`);
      const [, fieldName, type, list, optional, attrs] = m;
      const relation = /@relation\(([^)]*(?:\([^)]*\)[^)]*)*)\)/.exec(attrs)?.[1];
      const fks = relation && /fields:\s*\[([^\]]*)\]/.exec(relation);
      const refs = relation && /references:\s*\[([^\]]*)\]/.exec(relation);
      model.fields.set(fieldName, {
        name: fieldName,
        type,
        list: !!list,
        optional: !!optional,
        hasDefault: /@default\(/.test(attrs) || /@updatedAt\b/.test(attrs),
        dbGenerated: /@default\((autoincrement|dbgenerated|sequence)\(/.test(attrs),
        nativeType: /@db\.(\w+)/.exec(attrs)?.[1],
        relation: fks && refs ? { fields: listOf(fks[1]), references: listOf(refs[1]) } : undefined,
      });
      if (/@id\b/.test(attrs)) model.primaryKey = [fieldName];
    }
    models.set(name, model);
  }
  return { models, enums, declaredModels: [...text.matchAll(/^\s*model\s+\w+\s*\{/gm)].length };
}

const SCHEMAS = new Map(SERVICES.map((s) => [s.name, parseSchema(join(__dirname, '..', '..', 'services', s.name, 'prisma', 'schema.prisma'))]));

// ---------------------------------------------------------------- generated values

let seq = 0;
const FIXED_DATE = new Date('2026-03-04T05:06:07.891Z');

function generatedValue(service: string, model: string, field: FieldSpec, dm: RuntimeDataModel, schema: SchemaSpec): unknown {
  const key = `${service}.${model}.${field.name}`;
  if (key in OVERRIDES) return OVERRIDES[key];
  const n = ++seq;
  const enumValues = dm.enums[field.type]?.values.map((v) => v.name) ?? schema.enums.get(field.type);
  if (enumValues) return field.list ? [enumValues[0]] : enumValues[0];
  let one: unknown;
  switch (field.type) {
    case 'String':
      if (field.list) return ['a', 'b'];
      one = field.nativeType === 'Uuid' ? randomUUID() : `${field.name}-${n}-${Math.random().toString(36).slice(2, 10)}`;
      break;
    case 'Int':
      one = n;
      break;
    case 'BigInt':
      one = BigInt(n);
      break;
    case 'Float':
      one = n + 0.5;
      break;
    case 'Decimal':
      one = `${n}.5`;
      break;
    case 'Boolean':
      one = true;
      break;
    case 'DateTime':
      one = field.nativeType === 'Date' ? new Date('2026-03-04T00:00:00.000Z') : FIXED_DATE;
      break;
    case 'Json':
      return { k: [1, 'v'] };
    case 'Bytes':
      one = Buffer.from([0, 1, 2, 250, 255, n % 256]);
      break;
    default:
      throw new Error(`${key}: no generated value for type ${field.type}`);
  }
  return field.list ? [one, one] : one;
}

/** `String(value)` of a value read back, taken as unknown: whatever type came back, a failure shows it. */
function shown(value: unknown): string {
  return String(value);
}

/** Comparable form of a value read from or written through Prisma, keeping the JS type visible in a failure. */
function normalize(type: string, value: unknown): unknown {
  if (value === null || value === undefined) return value;
  if (Array.isArray(value)) return type === 'Json' ? value : value.map((v) => normalize(type, v));
  switch (type) {
    case 'DateTime':
      return value instanceof Date ? `Date ${value.toISOString()}` : `not a Date: ${shown(value)}`;
    case 'BigInt':
      return typeof value === 'bigint' ? `bigint ${value}` : `${typeof value} ${shown(value)}`;
    case 'Bytes':
      return value instanceof Uint8Array ? `bytes ${Buffer.from(value).toString('hex')}` : `not bytes: ${shown(value)}`;
    case 'Decimal':
      return `decimal ${shown(value)}`;
    default:
      return value;
  }
}

// ---------------------------------------------------------------- rows

interface Ctx {
  service: string;
  client: AnyClient;
  schema: SchemaSpec;
  dm: RuntimeDataModel;
}

const delegate = (ctx: Ctx, model: string) => ctx.client[model[0].toLowerCase() + model.slice(1)] as Delegate;

function whereOf(spec: ModelSpec, row: Row): Row {
  if (spec.primaryKey.length === 0) throw new Error(`${spec.name} has no @id / @@id`);
  if (spec.primaryKey.length === 1) return { [spec.primaryKey[0]]: row[spec.primaryKey[0]] };
  return { [spec.primaryKeyName!]: Object.fromEntries(spec.primaryKey.map((f) => [f, row[f]])) };
}

/**
 * Creates a row of `model`. `full`: every writable scalar and every relation (optional ones too) is set;
 * otherwise only required relations and required scalars without a default (the way parents are made).
 * Parent rows are pushed to `parents` (creation order) so the caller deletes them afterwards.
 */
async function createRow(ctx: Ctx, model: string, full: boolean, parents: { model: string; where: Row }[]): Promise<{ data: Row; row: Row }> {
  const spec = ctx.schema.models.get(model)!;
  const data: Row = {};
  const foreignKeys = new Set<string>();
  for (const field of spec.fields.values()) {
    if (!field.relation) continue;
    field.relation.fields.forEach((f) => foreignKeys.add(f));
    if (field.optional && !full) continue;
    const parent = await createRow(ctx, field.type, false, parents);
    parents.push({ model: field.type, where: whereOf(ctx.schema.models.get(field.type)!, parent.row) });
    field.relation.fields.forEach((f, i) => (data[f] = parent.row[field.relation!.references[i]]));
  }
  for (const field of ctx.dm.models[model].fields) {
    if (field.kind === 'object' || foreignKeys.has(field.name)) continue;
    const f = spec.fields.get(field.name)!;
    if (f.dbGenerated || (!full && (f.optional || f.hasDefault))) continue;
    data[field.name] = generatedValue(ctx.service, model, f, ctx.dm, ctx.schema);
  }
  const row = (await delegate(ctx, model).create({ data })) as Row;
  return { data, row };
}

async function roundTrip(ctx: Ctx, model: string, full: boolean): Promise<void> {
  const spec = ctx.schema.models.get(model)!;
  const scalars = ctx.dm.models[model].fields.filter((f) => f.kind !== 'object');
  const parents: { model: string; where: Row }[] = [];
  const { data, row } = await createRow(ctx, model, full, parents);
  const label = `${ctx.service}.${model} (${full ? 'every field set' : 'required fields only'})`;
  const written = (source: Row) => Object.fromEntries(Object.keys(data).map((k) => [k, normalize(spec.fields.get(k)!.type, source[k])]));

  expect({ [label]: written(row) }).toEqual({ [label]: written(data) });
  const where = whereOf(spec, row);
  const found = (await delegate(ctx, model).findUnique({ where })) as Row | null;
  expect(found).not.toBeNull();
  expect({ [label]: written(found!) }).toEqual({ [label]: written(data) });
  // Fields not written: database-generated and defaulted ones have a value, optional ones are null.
  const unwritten = scalars.filter((f) => !(f.name in data)).map((f) => spec.fields.get(f.name)!);
  const expected = Object.fromEntries(unwritten.map((f) => [f.name, f.dbGenerated || f.hasDefault ? 'a value' : 'null']));
  const actual = Object.fromEntries(unwritten.map((f) => [f.name, found![f.name] === null ? 'null' : found![f.name] === undefined ? 'missing' : 'a value']));
  expect({ [label]: actual }).toEqual({ [label]: expected });
  for (const f of unwritten) if (f.type === 'BigInt' && found![f.name] !== null) expect(typeof found![f.name]).toBe('bigint');

  await delegate(ctx, model).delete({ where });
  expect(await delegate(ctx, model).findUnique({ where })).toBeNull();
  for (const p of parents.reverse()) await delegate(ctx, p.model).delete({ where: p.where });
}

// ---------------------------------------------------------------- the two database kinds

interface OpenedDatabase {
  db: Database;
  close(): Promise<void>;
}

const KINDS: { name: string; open(): Promise<OpenedDatabase> }[] = [
  {
    name: 'PostgreSQL',
    async open() {
      const testDb = await createTestDatabase();
      const db = new PgDatabase({ connectionString: testDb.url });
      return { db, close: async () => (await db.close(), await testDb.drop()) };
    },
  },
  {
    name: 'PGlite',
    async open() {
      const dir = mkdtempSync(join(tmpdir(), 'am-prisma-models-'));
      const db = await PgliteDatabase.open(join(dir, 'data'));
      return { db, close: async () => (await db.close(), rmSync(dir, { recursive: true, force: true })) };
    },
  },
];

const CASES = SERVICES.flatMap((s) => s.modelNames.map((model) => ({ key: `${s.name}.${model}`, service: s.name, model })));

describe.each(KINDS)('Prisma models on a freshly migrated $name database', (kind) => {
  let opened: OpenedDatabase | undefined;
  const clients = new Map<string, AnyClient>();
  const covered = new Map<string, Set<string>>(SERVICES.map((s) => [s.name, new Set()]));
  const ctx = (service: string): Ctx => {
    const client = clients.get(service)!;
    return { service, client, schema: SCHEMAS.get(service)!, dm: client._runtimeDataModel };
  };

  beforeAll(async () => {
    opened = await kind.open();
    for (const s of SERVICES) clients.set(s.name, (await s.open(opened.db)) as AnyClient);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([...clients.values()].map((c) => c.$disconnect()));
    await opened?.close();
  });

  it.each(SERVICES)('$name: the client, its runtime data model and schema.prisma describe the same models and fields', ({ name, modelNames }) => {
    const { schema, dm } = ctx(name);
    expect(modelNames).toHaveLength(schema.declaredModels);
    expect([...schema.models.keys()].sort()).toEqual([...modelNames].sort());
    expect(Object.keys(dm.models).sort()).toEqual([...modelNames].sort());
    for (const model of modelNames) {
      expect({ [model]: dm.models[model].fields.map((f) => f.name).sort() }).toEqual({ [model]: [...schema.models.get(model)!.fields.keys()].sort() });
      expect({ [model]: schema.models.get(model)!.primaryKey.length > 0 }).toEqual({ [model]: true });
    }
  });

  it.each(CASES)('$key: create, findUnique by primary key (field by field), delete', async ({ service, model }) => {
    await roundTrip(ctx(service), model, true);
    await roundTrip(ctx(service), model, false);
    covered.get(service)!.add(model);
  });

  it.each(SERVICES)('$name: every model declared in schema.prisma was round-tripped', ({ name }) => {
    const schema = SCHEMAS.get(name)!;
    expect(covered.get(name)!.size).toBe(schema.declaredModels);
    expect([...covered.get(name)!].sort()).toEqual([...schema.models.keys()].sort());
  });
});
