/** Placeholder: filled in by the dashboard work (docs/dashboard.md). */
export function AgentPage() {
  return <h1>AgentPage</h1>;
}
