/**
 * Versioned subjects of the service bus (`<service>.v<N>.<action>`, DESIGN.md §1). Renaming one breaks
 * running replicas of other versions: add a new version instead.
 */
export const SUBJECTS = {
  agents: {
    create: 'agents.v1.create',
    get: 'agents.v1.get',
    authenticateKey: 'agents.v1.authenticate-key',
    getWallet: 'agents.v1.get-wallet',
  },
  records: {
    create: 'records.v1.create',
    list: 'records.v1.list',
    get: 'records.v1.get',
    update: 'records.v1.update',
    delete: 'records.v1.delete',
    resolveAccess: 'records.v1.resolve-access',
    resolveOwner: 'records.v1.resolve-owner',
  },
  memory: {
    remember: 'memory.v1.remember',
    recall: 'memory.v1.recall',
    forget: 'memory.v1.forget',
    context: 'memory.v1.context',
  },
  files: {
    write: 'files.v1.write',
    read: 'files.v1.read',
    rawPut: 'files.v1.raw-put',
    rawGet: 'files.v1.raw-get',
  },
  billing: {
    recordUsage: 'billing.v1.record-usage',
    usage: 'billing.v1.usage',
  },
} as const;

/** Durable events (JetStream in cluster mode; outbox + in-process delivery in standalone). */
export const EVENTS = {
  recordDeleted: 'records.v1.record-deleted',
} as const;

/** Queue groups: replicas of one service share requests (DESIGN.md §1). */
export const QUEUE_GROUPS = {
  agents: 'agents',
  records: 'records',
  memory: 'memory',
  files: 'files',
  billing: 'billing',
} as const;
