import { MAX_TAGS } from '@card-console/shared/api/notes-rules';
import { type RefObject, useId, useState } from 'react';
import { addTags, MAX_TAG, splitTags } from '../notes-form';

interface TagsFieldProps {
  tags: string[];
  /** What is typed and not yet a tag. */
  text: string;
  error: string | undefined;
  /** A save is on its way: nothing changes until it answers. */
  busy: boolean;
  inputRef: RefObject<HTMLInputElement | null>;
  onChange: (change: { tags: string[]; text: string; error: string | undefined }) => void;
}

/**
 * Tags as removable chips under a field: Enter or a comma makes what was typed a tag. A tag that
 * cannot be added (too long, already there, one too many) stays typed, with the reason.
 * Each addition and removal is announced.
 */
export function TagsField({ tags, text, error, busy, inputRef, onChange }: TagsFieldProps) {
  const id = useId();
  const [said, setSaid] = useState('');

  const add = (typed: string[], keep = '') => {
    const result = addTags(tags, typed);
    const rest = [...result.rest, ...(keep ? [keep] : [])].join(', ');
    onChange({ tags: result.tags, text: rest, error: result.error });
    if (result.added.length) setSaid(`Added ${plural(result.added)}.`);
  };

  const remove = (tag: string) => {
    onChange({ tags: tags.filter((t) => t !== tag), text, error: undefined });
    setSaid(`Removed tag ${tag}.`);
    inputRef.current?.focus();
  };

  const describedBy = `${id}-hint${error ? ` ${id}-error` : ''}`;
  return (
    <div className="field tags-field">
      <label htmlFor={id}>Tags</label>
      <input
        id={id}
        ref={inputRef}
        value={text}
        readOnly={busy}
        autoComplete="off"
        aria-describedby={describedBy}
        {...(error ? { 'aria-invalid': true } : {})}
        onChange={(e) => {
          const value = e.target.value;
          // A comma ends a tag (typed or pasted); what follows the last one is still being typed.
          if (!value.includes(',')) return onChange({ tags, text: value, error: undefined });
          const cut = value.lastIndexOf(',');
          add(splitTags(value.slice(0, cut)), value.slice(cut + 1).trimStart());
        }}
        onKeyDown={(e) => {
          if (e.key !== 'Enter') return;
          // Enter adds the tag; it does not save the notes.
          e.preventDefault();
          if (text.trim()) add(splitTags(text));
        }}
      />
      <small id={`${id}-hint`} className="muted">
        Enter or a comma adds a tag (up to {MAX_TAGS}, {MAX_TAG} characters each).
      </small>
      {error ? (
        <small id={`${id}-error`} className="field-error">
          {error}
        </small>
      ) : null}
      {tags.length ? (
        <ul className="tag-chips" aria-label="Tags on this transaction">
          {tags.map((tag) => (
            <li key={tag} className="chip">
              <span className="chip-text">{tag}</span>
              <button
                type="button"
                aria-label={`Remove tag ${tag}`}
                disabled={busy}
                onClick={() => remove(tag)}
              >
                <span aria-hidden="true">×</span>
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <span className="visually-hidden" role="status" aria-live="polite">
        {said}
      </span>
    </div>
  );
}

const plural = (added: string[]) =>
  added.length === 1 ? `tag ${added[0]}` : `tags ${added.join(', ')}`;

/** Tags as chips, read only. */
export function TagChips({ tags }: { tags: string[] }) {
  return (
    <ul className="tag-chips" aria-label="Tags">
      {tags.map((tag) => (
        <li key={tag} className="chip">
          <span className="chip-text">{tag}</span>
        </li>
      ))}
    </ul>
  );
}
