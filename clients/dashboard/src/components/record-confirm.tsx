import { type ReactNode, useEffect, useId, useRef } from 'react';

/**
 * A modal confirmation (`<dialog>` opened with `showModal()`: focus is trapped inside, Escape cancels).
 * `onConfirm` runs on the confirm button; `onCancel` on Cancel, Escape or closing. `busy` disables both.
 */
export function ConfirmDialog(props: {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  busy?: boolean;
  error?: string;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const { title, children, confirmLabel, busy, error, onConfirm, onCancel } = props;
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      className="confirm"
      onCancel={(event) => {
        event.preventDefault();
        if (!busy) onCancel();
      }}
    >
      <h2 id={titleId}>{title}</h2>
      {children}
      {error ? <p role="alert" className="error">{error}</p> : null}
      <div className="actions">
        <button type="button" onClick={onCancel} disabled={busy}>Cancel</button>
        <button type="button" className="danger" onClick={onConfirm} disabled={busy}>
          {busy ? 'Working…' : confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
