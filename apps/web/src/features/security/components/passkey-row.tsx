import { type PasskeySummary, passkeyNameSchema } from '@card-console/shared/api/security';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { CellLabel } from '../../../components/cell-label';
import { Field } from '../../../components/field';
import { formatInstant } from '../../../lib/format';
import { renamePasskey } from '../api/rename-passkey';
import { describeFactorError } from './describe-factor-error';

interface PasskeyRowProps {
  passkey: PasskeySummary;
  editing: boolean;
  onEdit: (editing: boolean) => void;
  onRenamed: (passkey: PasskeySummary) => void;
  onRemove: () => void;
}

/** One passkey; "Rename" turns its name into a field (Enter saves, Escape cancels). */
export function PasskeyRow({ passkey, editing, onEdit, onRenamed, onRemove }: PasskeyRowProps) {
  const renameButton = useRef<HTMLButtonElement>(null);
  const wasEditing = useRef(editing);
  // Back from the field (saved or cancelled): focus returns to this row's Rename.
  useEffect(() => {
    if (wasEditing.current && !editing) renameButton.current?.focus();
    wasEditing.current = editing;
  }, [editing]);

  return (
    <tr>
      <th scope="row">
        {editing ? (
          <RenameForm
            passkey={passkey}
            onCancel={() => onEdit(false)}
            onRenamed={(renamed) => {
              onRenamed(renamed);
              onEdit(false);
            }}
          />
        ) : (
          passkey.name
        )}
      </th>
      <td className="nowrap">
        <CellLabel>Added</CellLabel>
        {formatInstant(passkey.createdAt)}
      </td>
      <td className="nowrap">
        <CellLabel>Last used</CellLabel>
        {passkey.lastUsedAt === undefined ? 'Never' : formatInstant(passkey.lastUsedAt)}
      </td>
      <td className="nowrap">
        {editing ? null : (
          <div className="row-actions">
            {/* The name says which passkey; it starts with the visible word (label in name). */}
            <button
              ref={renameButton}
              type="button"
              aria-label={`Rename ${passkey.name}`}
              onClick={() => onEdit(true)}
            >
              Rename
            </button>
            <button type="button" aria-label={`Remove ${passkey.name}`} onClick={onRemove}>
              Remove
            </button>
          </div>
        )}
      </td>
    </tr>
  );
}

function RenameForm(props: {
  passkey: PasskeySummary;
  onCancel: () => void;
  onRenamed: (passkey: PasskeySummary) => void;
}) {
  const { passkey, onCancel, onRenamed } = props;
  const [name, setName] = useState(passkey.name);
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    input.current?.focus();
    input.current?.select();
  }, []);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    const parsed = passkeyNameSchema.safeParse(name);
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message);
      return;
    }
    if (parsed.data === passkey.name) return onCancel();
    setBusy(true);
    setError(undefined);
    try {
      onRenamed(await renamePasskey(passkey.id, parsed.data));
    } catch (caught) {
      setError(describeFactorError(caught));
      setBusy(false);
    }
  };

  return (
    <form className="inline-rename" onSubmit={(e) => void submit(e)} noValidate>
      <Field label="New name" error={error}>
        {(control) => (
          <input
            {...control}
            ref={input}
            value={name}
            onChange={(e) => setName(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Escape') {
                e.preventDefault();
                onCancel();
              }
            }}
          />
        )}
      </Field>
      <div className="actions">
        <button type="submit" className="primary" aria-disabled={busy || undefined}>
          Save
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
