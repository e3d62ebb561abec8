/** The agent-memory CLI (placeholder until the CLI lands). */
export {};
