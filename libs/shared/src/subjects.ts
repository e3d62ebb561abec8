/**
 * Versioned subjects of the service bus (`<service>.v<N>.<action>`, docs/architecture.md "Bus subjects"). Renaming one breaks
 * running replicas of other versions: add a new version instead.
 */
export const SUBJECTS = {
  agents: {
    create: 'agents.v1.create',
    /** Issues the EIP-4361 challenge a client signs to bind its own wallet on create. */
    walletChallenge: 'agents.v1.wallet-challenge',
    get: 'agents.v1.get',
    authenticateKey: 'agents.v1.authenticate-key',
    getWallet: 'agents.v1.get-wallet',
    findByWallet: 'agents.v1.find-by-wallet',
    listKeys: 'agents.v1.keys.list',
    rotateKey: 'agents.v1.keys.rotate',
    revokeKey: 'agents.v1.keys.revoke',
  },
  /** Human accounts, passkeys, sessions and claims; answered by the agents service. */
  humans: {
    passkeyRegisterOptions: 'agents.v1.passkeys.register-options',
    passkeyRegisterVerify: 'agents.v1.passkeys.register-verify',
    passkeyLoginOptions: 'agents.v1.passkeys.login-options',
    passkeyLoginVerify: 'agents.v1.passkeys.login-verify',
    authenticateSession: 'agents.v1.sessions.authenticate',
    endSession: 'agents.v1.sessions.end',
    get: 'agents.v1.humans.get',
    /** Deletes one of a human's passkeys, never the last. */
    deletePasskey: 'agents.v1.passkeys.delete',
    claim: 'agents.v1.claims.create',
    listClaims: 'agents.v1.claims.list',
    releaseClaim: 'agents.v1.claims.delete',
    /** The agent itself drops a human's claim on it. */
    releaseClaimByAgent: 'agents.v1.claims.release-by-agent',
    resolveClaim: 'agents.v1.claims.resolve',
    /** Sign in with Ethereum (EIP-4361): prepares the message to sign, with a single-use nonce for one wallet. */
    siweNonce: 'agents.v1.siwe.nonce',
    /** Sign in with Ethereum: verifies the signed message, claims the wallet's agent, answers a session. */
    siweVerify: 'agents.v1.siwe.verify',
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
    /** One keyset page of a record's memories in path order (docs/api.md, "List memories"). */
    list: 'memory.v1.list',
  },
  files: {
    write: 'files.v1.write',
    read: 'files.v1.read',
    rawPut: 'files.v1.raw-put',
    rawGet: 'files.v1.raw-get',
    /** One keyset page of a record's files (metadata) in path order (docs/api.md, "List files"). */
    list: 'files.v1.list',
  },
  billing: {
    recordUsage: 'billing.v1.record-usage',
    /** The ledger entries of several answered calls (any agents) in one insert: the gateway's batched writes after the answer. */
    recordUsageBatch: 'billing.v1.record-usage-batch',
    usage: 'billing.v1.usage',
    balance: 'billing.v1.balance',
    reserve: 'billing.v1.reserve',
    commit: 'billing.v1.commit',
    release: 'billing.v1.release',
    claimPayment: 'billing.v1.claim-payment',
    completePayment: 'billing.v1.complete-payment',
    /** Completes a settled credential's payment, records the call's usage and decides its refund, in one transaction. */
    settlePaidCall: 'billing.v1.settle-paid-call',
    credit: 'billing.v1.credit',
    /** Balances and last activity of several agents at once (read only): the human's agent list. */
    agentsActivity: 'billing.v1.agents-activity',
  },
  /** Cluster mode without Qdrant only: the embedded vector index as its own single-replica service. */
  vectorIndex: {
    open: 'vector-index.v1.open',
    upsert: 'vector-index.v1.upsert',
    searchDense: 'vector-index.v1.search-dense',
    searchSparse: 'vector-index.v1.search-sparse',
    scoreDense: 'vector-index.v1.score-dense',
    searchCandidates: 'vector-index.v1.search-candidates',
    delete: 'vector-index.v1.delete',
    deleteTenant: 'vector-index.v1.delete-tenant',
    compact: 'vector-index.v1.compact',
    count: 'vector-index.v1.count',
  },
} as const;

/** Durable events (JetStream in cluster mode; outbox + in-process delivery in standalone). */
export const EVENTS = {
  recordDeleted: 'records.v1.record-deleted',
} as const;

/** Queue groups: replicas of one service share requests (docs/architecture.md, "Bus subjects"). */
export const QUEUE_GROUPS = {
  agents: 'agents',
  records: 'records',
  memory: 'memory',
  files: 'files',
  billing: 'billing',
  vectorIndex: 'vector-index',
} as const;
