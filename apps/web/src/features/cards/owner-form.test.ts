import { describe, expect, it } from 'vitest';
import { card } from '../../test/fixtures';
import { initialOwnerValues, validateOwnerForm } from './owner-form';

const owned = card({ owner: { name: 'Elena Walsh', email: 'elena@example.test' }, team: 'Sales' });

describe('owner form', () => {
  it('starts from the card as it is, empty where it has none', () => {
    expect(initialOwnerValues(owned)).toEqual({
      ownerName: 'Elena Walsh',
      ownerEmail: 'elena@example.test',
      team: 'Sales',
    });
    expect(initialOwnerValues(card())).toEqual({ ownerName: '', ownerEmail: '', team: '' });
  });

  it('an emptied owner or team takes that one off; the other is kept', () => {
    expect(
      validateOwnerForm(owned, { ...initialOwnerValues(owned), ownerName: '', ownerEmail: '' }),
    ).toEqual({ ok: true, body: { owner: null, team: 'Sales' } });
    expect(validateOwnerForm(owned, { ...initialOwnerValues(owned), team: ' ' })).toEqual({
      ok: true,
      body: { owner: { name: 'Elena Walsh', email: 'elena@example.test' }, team: null },
    });
  });

  it('an owner without an email is sent without one', () => {
    expect(validateOwnerForm(card(), { ownerName: 'Sam Lee', ownerEmail: '', team: '' })).toEqual({
      ok: true,
      body: { owner: { name: 'Sam Lee' }, team: null },
    });
  });

  it('the same values, as People writes the email, are no change', () => {
    expect(
      validateOwnerForm(owned, {
        ownerName: ' Elena Walsh',
        ownerEmail: 'ELENA@example.test ',
        team: 'Sales',
      }),
    ).toEqual({ ok: false, errors: { form: 'Nothing has changed.' } });
  });

  it('a name longer than 100 characters is refused in plain words', () => {
    expect(
      validateOwnerForm(card(), {
        ownerName: 'x'.repeat(101),
        ownerEmail: '',
        team: 'y'.repeat(101),
      }),
    ).toEqual({
      ok: false,
      errors: { ownerName: 'Use at most 100 characters.', team: 'Use at most 100 characters.' },
    });
  });
});
