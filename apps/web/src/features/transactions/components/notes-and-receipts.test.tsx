import {
  type Notes,
  type NotesChange,
  notesChangeSchema,
  type Receipt,
} from '@card-console/shared/api/notes';
import { screen, waitFor, within } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import {
  accountingCategories,
  financeSession,
  transaction,
  transactionNotes,
} from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { apiError, serve, server } from '../../../test/server';

const ME = 'finance@example.test';
const THEM = 'admin@example.test';
const AT = '2026-03-06T09:00:00.000Z';
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]);

/**
 * The BFF's notes and receipts of tx_1, as it keeps them: a change of the notes names the
 * version it was made on (409 `notes_changed` with the notes as they are otherwise); a
 * receipt is a row of its own and leaves the notes and their version as they are.
 * `whileUploading` is someone else's change of the notes, saved as this person's receipt arrives.
 */
function serveDetail(start: Notes, whileUploading?: (a: Notes) => Notes) {
  let notes = start;
  let receipts: Receipt[] = [];
  const patches: NotesChange[] = [];
  server.use(
    serve('transactions.get', () => HttpResponse.json(transaction())),
    serve('accountingCategories.list', () => HttpResponse.json({ items: accountingCategories })),
    serve('notes.get', () => HttpResponse.json(notes)),
    serve('notes.update', async ({ request }) => {
      const change = notesChangeSchema.parse(await request.json());
      patches.push(change);
      if (change.version !== notes.version) {
        return apiError(409, 'notes_changed', 'Someone else changed the notes.', {
          current: notes,
        });
      }
      notes = {
        ...notes,
        memo: change.memo ?? notes.memo,
        version: notes.version + 1,
        updatedBy: ME,
        updatedAt: AT,
      };
      return HttpResponse.json(notes);
    }),
    serve('receipts.list', () => HttpResponse.json({ items: receipts })),
    serve('receipts.upload', async ({ request }) => {
      const name = decodeURIComponent(request.headers.get('x-file-name') ?? 'receipt');
      const added: Receipt = {
        id: `rc_${receipts.length + 1}`,
        transactionId: 'tx_1',
        fileName: name,
        mediaType: 'image/png',
        byteSize: (await request.arrayBuffer()).byteLength,
        sha256: 'a'.repeat(64),
        uploadedBy: ME,
        uploadedAt: AT,
      };
      receipts = [...receipts, added];
      if (whileUploading) notes = whileUploading(notes);
      return HttpResponse.json(added, { status: 201 });
    }),
    serve(
      'receipts.download',
      () => new HttpResponse(PNG, { headers: { 'Content-Type': 'image/png' } }),
    ),
  );
  return { patches };
}

const loaded = async () => {
  await screen.findByRole('region', { name: 'Notes' }, { timeout: 3000 });
  await waitFor(() => {
    expect(screen.queryByText('Loading notes…')).not.toBeInTheDocument();
    expect(screen.queryByText('Loading receipts…')).not.toBeInTheDocument();
  });
  return {
    notes: within(screen.getByRole('region', { name: 'Notes' })),
    receipts: within(screen.getByRole('region', { name: 'Receipts' })),
  };
};

beforeEach(() => {
  Object.assign(URL, { createObjectURL: vi.fn(() => 'blob:receipt'), revokeObjectURL: vi.fn() });
});

describe('the notes and receipts of a transaction, in the order of a close', {
  timeout: 15_000,
}, () => {
  it('a memo begun, a receipt attached, the memo saved: saved on the version shown, no conflict', async () => {
    const { patches } = serveDetail(
      transactionNotes({ memo: 'Dinner', version: 3, updatedBy: ME, updatedAt: AT }),
    );
    const { user } = renderApp('/transactions/tx_1', { session: financeSession() });
    const { notes, receipts } = await loaded();
    await user.type(notes.getByLabelText('Memo'), ' with the');
    await user.upload(receipts.getByLabelText('Attach a receipt'), [
      new File([PNG], 'dinner.png', { type: 'image/png' }),
    ]);
    expect(await receipts.findByText('Attached dinner.png.')).toBeInTheDocument();
    await user.type(notes.getByLabelText('Memo'), ' team');
    await user.click(notes.getByRole('button', { name: 'Save' }));
    expect(await notes.findByText('Notes saved.')).toBeInTheDocument();
    expect(patches).toEqual([{ version: 3, memo: 'Dinner with the team' }]);
    expect(notes.queryByText('Someone else changed these notes')).not.toBeInTheDocument();
  });

  it('a receipt attached, then the memo typed and saved: no conflict', async () => {
    const { patches } = serveDetail(transactionNotes());
    const { user } = renderApp('/transactions/tx_1', { session: financeSession() });
    const { notes, receipts } = await loaded();
    await user.upload(receipts.getByLabelText('Attach a receipt'), [
      new File([PNG], 'taxi.png', { type: 'image/png' }),
    ]);
    expect(await receipts.findByText('Attached taxi.png.')).toBeInTheDocument();
    await user.type(notes.getByLabelText('Memo'), 'Taxi');
    await user.click(notes.getByRole('button', { name: 'Save' }));
    expect(await notes.findByText('Notes saved.')).toBeInTheDocument();
    expect(patches).toEqual([{ version: 0, memo: 'Taxi' }]);
  });

  it('someone else’s change of the notes meanwhile is still shown as theirs, the memo kept in the form', async () => {
    const { patches } = serveDetail(transactionNotes(), (a) => ({
      ...a,
      memo: 'Client dinner',
      version: a.version + 1,
      updatedBy: THEM,
      updatedAt: AT,
    }));
    const { user } = renderApp('/transactions/tx_1', { session: financeSession() });
    const { notes, receipts } = await loaded();
    await user.type(notes.getByLabelText('Memo'), 'Team');
    await user.upload(receipts.getByLabelText('Attach a receipt'), [
      new File([PNG], 'dinner.png', { type: 'image/png' }),
    ]);
    expect(await receipts.findByText('Attached dinner.png.')).toBeInTheDocument();
    await user.click(notes.getByRole('button', { name: 'Save' }));
    expect(
      await notes.findByRole('heading', { name: 'Someone else changed these notes' }),
    ).toBeInTheDocument();
    expect(notes.getByRole('alert')).toHaveTextContent(
      `${THEM} saved a change to these notes after you opened them`,
    );
    expect(notes.getByLabelText('Memo')).toHaveValue('Team');
    expect(patches).toEqual([{ version: 0, memo: 'Team' }]);
  });
});
