import type { ReactNode } from 'react';

/**
 * A container that may scroll sideways (a wide table or chart on a phone): a labelled region that takes
 * the keyboard focus, so that keyboard users can scroll it with the arrow keys (axe rule
 * `scrollable-region-focusable`; docs/dashboard.md, "Accessibility"). `label` names it for screen readers.
 */
export function ScrollRegion({ label, className = 'table-wrap', hidden, children }: { label: string; className?: string; hidden?: boolean; children: ReactNode }) {
  return (
    // eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex -- a scrolling region must be reachable by keyboard (axe scrollable-region-focusable)
    <div className={className} role="region" aria-label={label} tabIndex={0} hidden={hidden}>
      {children}
    </div>
  );
}
