import { nameProblem } from '@card-console/shared/api/names';
import type { SubAccountCreated } from '@card-console/shared/api/sub-accounts';
import { type FormEvent, useState } from 'react';
import { Dialog } from '../../../components/dialog';
import { Field } from '../../../components/field';
import { useCreateSubAccount } from '../api/create-sub-account';

interface Props {
  onClose: () => void;
  onCreated: (created: SubAccountCreated) => void;
}

export function CreateSubAccountDialog({ onClose, onCreated }: Props) {
  const [name, setName] = useState('');
  const [invalid, setInvalid] = useState<string | undefined>();
  const create = useCreateSubAccount();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const problem = nameProblem(name);
    if (problem) {
      setInvalid(problem);
      return;
    }
    setInvalid(undefined);
    create.mutate({ name: name.trim() }, { onSuccess: onCreated });
  };

  const error = invalid ?? (create.error ? create.error.message : undefined);
  return (
    <Dialog title="Create sub account" onClose={onClose}>
      <form className="stack" onSubmit={submit} noValidate>
        <Field label="Name">
          {(control) => (
            <input
              {...control}
              name="name"
              value={name}
              maxLength={100}
              required
              onChange={(e) => setName(e.target.value)}
            />
          )}
        </Field>
        {error ? (
          <p className="form-error" role="alert">
            {error}
          </p>
        ) : null}
        <div className="actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={create.isPending}>
            {create.isPending ? 'Creating…' : 'Create'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
