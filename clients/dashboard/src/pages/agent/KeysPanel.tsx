/** An agent's keys: list, rotate (with grace; the new key shown once), revoke. Placeholder (docs/dashboard.md). */
export function KeysPanel({ agentId }: { agentId: string }) {
  return <section aria-label="Keys" data-agent={agentId} />;
}
