/** The agent-memory TypeScript client (placeholder until the SDK lands). */
export {};
