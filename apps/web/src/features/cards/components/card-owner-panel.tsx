import type { CardOwner } from '@card-console/shared/api/card-owners';
import type { Card } from '@card-console/shared/api/cards';
import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { Field } from '../../../components/field';
import { peopleQueryOptions } from '../../people/api/people';
import { cardOwnersQueryOptions } from '../api/get-card-owners';
import { useSetCardOwner } from '../api/set-card-owner';
import {
  initialOwnerValues,
  type OwnerField,
  type OwnerFormErrors,
  type OwnerFormValues,
  validateOwnerForm,
} from '../owner-form';

/**
 * "Owner and team": Card Console's own, not the card service's. Everyone reads them; an admin
 * changes them in place (the form's suggestions, People's emails and the teams given, load
 * when it opens).
 */
export function CardOwnerPanel({ card, isAdmin }: { card: Card; isAdmin: boolean }) {
  const [editing, setEditing] = useState(false);
  const [message, setMessage] = useState<string>();
  const openButton = useRef<HTMLButtonElement>(null);
  const closed = useRef(false);
  // Saved or cancelled: focus goes back to the button that opened the form.
  useEffect(() => {
    if (editing || !closed.current) return;
    closed.current = false;
    openButton.current?.focus();
  }, [editing]);
  const given = card.owner !== undefined || card.team !== undefined;

  return (
    <section className="panel card-owner-panel" aria-labelledby="card-owner-title">
      <h2 id="card-owner-title">Owner and team</h2>
      {card.ownershipUnavailable ? (
        <p className="muted">
          The owner and team cannot be read just now; they are shown again once Card Console's
          database answers.
        </p>
      ) : isAdmin && editing ? (
        <OwnerForm
          card={card}
          onDone={(done) => {
            closed.current = true;
            setEditing(false);
            setMessage(done || undefined);
          }}
        />
      ) : (
        <>
          <dl className="pairs">
            <dt>Owner</dt>
            <dd>{card.owner ? <OwnerText owner={card.owner} /> : <Muted>No owner</Muted>}</dd>
            <dt>Team</dt>
            <dd>{card.team ?? <Muted>No team</Muted>}</dd>
          </dl>
          <div role="status">{message ? <p className="notice">{message}</p> : null}</div>
          {isAdmin ? (
            <div className="actions">
              <button
                type="button"
                ref={openButton}
                onClick={() => {
                  setMessage(undefined);
                  setEditing(true);
                }}
              >
                {given ? 'Change owner and team' : 'Give an owner and team'}
              </button>
            </div>
          ) : null}
        </>
      )}
    </section>
  );
}

function Muted({ children }: { children: string }) {
  return <span className="muted">{children}</span>;
}

/** "Elena Walsh", and under it her email, and whether she signs in (a person in People). */
function OwnerText({ owner }: { owner: CardOwner }) {
  return (
    <>
      <span className="owner-name">{owner.name}</span>
      {owner.email ? (
        <span className="owner-email muted">
          {owner.email}
          {owner.person ? ' · signs in' : ''}
        </span>
      ) : null}
    </>
  );
}

/**
 * The owner's name and email, and the team: an empty one is taken off. Whatever was typed stays
 * when the BFF refuses it (its reason shown); "Take owner and team off" clears both at once.
 */
function OwnerForm({ card, onDone }: { card: Card; onDone: (message: string) => void }) {
  const [values, setValues] = useState<OwnerFormValues>(() => initialOwnerValues(card));
  const [errors, setErrors] = useState<OwnerFormErrors>({});
  const save = useSetCardOwner(card.id);
  const directory = useQuery(cardOwnersQueryOptions());
  const people = useQuery(peopleQueryOptions());
  const ids = useId();
  const root = useRef<HTMLFormElement>(null);
  const opened = useRef(false);
  // The first field on opening; the first wrong one after a refused check.
  useEffect(() => {
    const fields = [...(root.current?.querySelectorAll('input') ?? [])];
    const wrong = fields.find((f) => f.getAttribute('aria-invalid') === 'true');
    if (wrong) wrong.focus();
    else if (Object.keys(errors).length === 0 && !opened.current) fields[0]?.focus();
    opened.current = true;
  }, [errors]);

  const set = (field: OwnerField) => (e: React.ChangeEvent<HTMLInputElement>) =>
    setValues((v) => ({ ...v, [field]: e.target.value }));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const result = validateOwnerForm(card, values);
    if (!result.ok) {
      setErrors(result.errors);
      return;
    }
    setErrors({});
    save.mutate(result.body, { onSuccess: () => onDone('Owner and team saved.') });
  };
  const takeOff = () => {
    setErrors({});
    save.mutate(
      { owner: null, team: null },
      { onSuccess: () => onDone('Owner and team taken off.') },
    );
  };

  // People who sign in first, then the cardholders already given as owners.
  const emails = [
    ...new Set([
      ...(people.data?.people ?? []).filter((p) => !p.disabled).map((p) => p.email),
      ...(directory.data?.owners ?? []).flatMap((o) => (o.email ? [o.email] : [])),
    ]),
  ];
  const given = card.owner !== undefined || card.team !== undefined;

  return (
    <form ref={root} className="stack owner-form" onSubmit={submit} noValidate>
      <Field label="Owner's name" error={errors.ownerName}>
        {(control) => (
          <input
            {...control}
            value={values.ownerName}
            list={`${ids}-owners`}
            autoComplete="off"
            onChange={set('ownerName')}
          />
        )}
      </Field>
      <Field
        label="Owner's email (optional)"
        hint="Where the card's alerts reach them. A person in People also sees them in their inbox."
        error={errors.ownerEmail}
      >
        {(control) => (
          <input
            {...control}
            type="email"
            value={values.ownerEmail}
            list={`${ids}-emails`}
            autoComplete="off"
            onChange={set('ownerEmail')}
          />
        )}
      </Field>
      <Field label="Team" error={errors.team}>
        {(control) => (
          <input
            {...control}
            value={values.team}
            list={`${ids}-teams`}
            autoComplete="off"
            onChange={set('team')}
          />
        )}
      </Field>
      <datalist id={`${ids}-owners`}>
        {(directory.data?.owners ?? []).map((o) => (
          <option key={o.name} value={o.name} />
        ))}
      </datalist>
      <datalist id={`${ids}-emails`}>
        {emails.map((email) => (
          <option key={email} value={email} />
        ))}
      </datalist>
      <datalist id={`${ids}-teams`}>
        {(directory.data?.teams ?? []).map((t) => (
          <option key={t.name} value={t.name} />
        ))}
      </datalist>
      {errors.form ? (
        <p className="form-error" role="alert">
          {errors.form}
        </p>
      ) : save.isError ? (
        <p className="form-error" role="alert">
          Not saved: {save.error.message}
        </p>
      ) : null}
      <div className="actions">
        {given ? (
          <button
            type="button"
            className="owner-take-off"
            disabled={save.isPending}
            onClick={takeOff}
          >
            Take owner and team off
          </button>
        ) : null}
        <button type="button" onClick={() => onDone('')}>
          Cancel
        </button>
        <button type="submit" className="primary" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save'}
        </button>
      </div>
    </form>
  );
}
