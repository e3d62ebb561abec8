/** Placeholder: filled in by the dashboard work (docs/dashboard.md). */
export function AgentsPage() {
  return <h1>AgentsPage</h1>;
}
