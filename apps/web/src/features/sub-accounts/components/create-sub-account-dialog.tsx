import { nameProblem } from '@card-console/shared/api/names';
import type { SubAccountCreated } from '@card-console/shared/api/sub-accounts';
import { type FormEvent, useId, useRef, useState } from 'react';
import { Dialog } from '../../../components/dialog';
import { Field } from '../../../components/field';
import { FormFooter } from '../../../components/form-footer';
import { isApiError } from '../../../lib/api-error';
import { useCreateSubAccount } from '../api/create-sub-account';

interface Props {
  onClose: () => void;
  onCreated: (created: SubAccountCreated) => void;
}

/** Refusals about the name itself: said under the field, which takes the focus to be fixed. */
const NAME_CODES = new Set(['sub_account_name_taken']);

export function CreateSubAccountDialog({ onClose, onCreated }: Props) {
  const [name, setName] = useState('');
  const [invalid, setInvalid] = useState<string | undefined>();
  const input = useRef<HTMLInputElement>(null);
  const nameErrorId = useId();
  const create = useCreateSubAccount();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const problem = nameProblem(name);
    if (problem) {
      setInvalid(problem);
      input.current?.focus();
      return;
    }
    setInvalid(undefined);
    create.mutate(
      { name: name.trim() },
      {
        onSuccess: onCreated,
        onError: (error) => {
          if (isApiError(error) && NAME_CODES.has(error.code)) input.current?.focus();
        },
      },
    );
  };

  const serverError = create.error;
  const nameTaken = isApiError(serverError) && NAME_CODES.has(serverError.code);
  const nameError = invalid ?? (nameTaken ? serverError.message : undefined);
  const formError = !invalid && serverError && !nameTaken ? serverError.message : undefined;
  return (
    <Dialog title="Create sub account" onClose={onClose}>
      <form className="stack" onSubmit={submit} noValidate>
        <Field label="Name">
          {(control) => (
            <input
              {...control}
              {...(nameError ? { 'aria-invalid': true, 'aria-describedby': nameErrorId } : {})}
              ref={input}
              name="name"
              value={name}
              required
              onChange={(e) => {
                setName(e.target.value);
                // The refusal was about the name sent, not this one.
                if (nameTaken) create.reset();
              }}
            />
          )}
        </Field>
        {/* Right under the field it is about, and announced as it appears. */}
        {nameError ? (
          <p id={nameErrorId} className="field-error name-error" role="alert">
            {nameError}
          </p>
        ) : null}
        <FormFooter error={formError} onCancel={onClose}>
          <button type="submit" className="primary" disabled={create.isPending}>
            {create.isPending ? 'Creating…' : 'Create'}
          </button>
        </FormFooter>
      </form>
    </Dialog>
  );
}
