/** An agent's balance and usage: calls and spend per day and per operation, and the ledger. Placeholder (docs/dashboard.md). */
export function UsagePanel({ agentId }: { agentId: string }) {
  return <section aria-label="Usage" data-agent={agentId} />;
}
