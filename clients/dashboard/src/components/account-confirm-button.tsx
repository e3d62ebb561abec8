import { useEffect, useRef, useState } from 'react';

/**
 * A button whose action asks first: the first press shows the question with "Yes, <label>" and "Cancel"
 * (focus moves to the confirming button; Cancel returns it to the first button). While the action runs
 * the buttons are disabled. `disabled` with `disabledReason` shows why the action is not possible,
 * tied to the button with `aria-describedby`.
 */
export function ConfirmButton(props: {
  /** The button's text, e.g. "Remove". */
  label: string;
  /** Its accessible name when the text alone is ambiguous in a list, e.g. "Remove passkey created 3 May". */
  accessibleLabel?: string;
  /** The question shown before the action, e.g. "Remove this passkey?" */
  question: string;
  onConfirm: () => Promise<void> | void;
  disabled?: boolean;
  disabledReason?: string;
  /** An id prefix for the description element. */
  id: string;
}) {
  const { label, accessibleLabel, question, onConfirm, disabled, disabledReason, id } = props;
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const yesRef = useRef<HTMLButtonElement>(null);
  const firstRef = useRef<HTMLButtonElement>(null);
  const wasAsking = useRef(false);
  /** The page part of a confirmed action: when the action removed this item, the focus goes to its heading. */
  const confirmedIn = useRef<Element | null | undefined>(undefined);

  useEffect(
    () => () => {
      const region = confirmedIn.current;
      if (region?.isConnected && (document.activeElement === null || document.activeElement === document.body)) focusHeading(region);
    },
    [],
  );

  useEffect(() => {
    if (asking) yesRef.current?.focus();
    else if (wasAsking.current) firstRef.current?.focus();
    wasAsking.current = asking;
  }, [asking]);

  if (asking) {
    return (
      <span className="account-confirm" role="group" aria-label={question}>
        <span>{question}</span>{' '}
        <button
          type="button"
          className="danger"
          ref={yesRef}
          disabled={busy}
          onClick={() => {
            setBusy(true);
            confirmedIn.current = yesRef.current?.closest('section, main');
            void Promise.resolve(onConfirm()).finally(() => {
              setBusy(false);
              setAsking(false);
            });
          }}
        >
          Yes, {label.toLowerCase()}
        </button>{' '}
        <button type="button" disabled={busy} onClick={() => setAsking(false)}>
          Cancel
        </button>
      </span>
    );
  }
  const reasonId = `${id}-reason`;
  return (
    <span>
      <button
        type="button"
        className="danger"
        ref={firstRef}
        aria-label={accessibleLabel}
        disabled={disabled}
        aria-describedby={disabled && disabledReason ? reasonId : undefined}
        onClick={() => setAsking(true)}
      >
        {label}
      </button>
      {disabled && disabledReason ? (
        <span id={reasonId} className="hint">
          {' '}
          {disabledReason}
        </span>
      ) : null}
    </span>
  );
}

/** Focuses the first heading of `region` (made focusable by script only), or the region itself. */
function focusHeading(region: Element | null | undefined): void {
  if (!region) return;
  const heading = region.querySelector<HTMLElement>('h1, h2');
  const target = heading ?? (region as HTMLElement);
  if (!target.hasAttribute('tabindex')) target.setAttribute('tabindex', '-1');
  target.focus();
}
