import {
  type AccountingCategory,
  accountingCategoryCreateSchema,
  accountingCategoryPatchSchema,
} from '@card-console/shared/api/accounting-categories';
import { screen, within } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  accountingCategories,
  adminSession,
  financeSession,
  quietOverview,
} from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { apiError, serve, server } from '../../../test/server';

/** The BFF's chart of accounts: codes unique whatever their case, kept by code. */
function serveChart(start: AccountingCategory[] = accountingCategories) {
  let items = [...start];
  const sent: unknown[] = [];
  const taken = (code: string, id?: string) =>
    items.some((c) => c.id !== id && c.code.toLowerCase() === code.toLowerCase());
  const codeTaken = () =>
    apiError(
      409,
      'category_code_taken',
      'Another accounting category already has this code. Use a different code.',
    );
  server.use(
    serve('accountingCategories.list', () => HttpResponse.json({ items })),
    serve('accountingCategories.create', async ({ request }) => {
      const body = accountingCategoryCreateSchema.parse(await request.json());
      sent.push(body);
      if (taken(body.code)) return codeTaken();
      const created = { id: `cat_${items.length + 1}`, ...body, archived: false };
      items = [...items, created].sort((a, b) => a.code.localeCompare(b.code));
      return HttpResponse.json(created, { status: 201 });
    }),
    serve('accountingCategories.update', async ({ request, params }) => {
      const patch = accountingCategoryPatchSchema.parse(await request.json());
      sent.push({ id: params.id, ...patch });
      if (patch.code && taken(patch.code, String(params.id))) return codeTaken();
      items = items.map((c) => (c.id === params.id ? { ...c, ...patch } : c));
      return HttpResponse.json(items.find((c) => c.id === params.id));
    }),
  );
  return { sent };
}

const rowOf = (name: RegExp) => within(screen.getByRole('row', { name }));

describe('chart of accounts', () => {
  it('lists every category by code with its status', async () => {
    serveChart();
    renderApp('/accounting-categories', { session: adminSession() });
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Chart of accounts' }),
    ).toBeVisible();
    expect(document.title).toBe('Chart of accounts · Card Console');
    const rows = screen.getAllByRole('row').slice(1);
    expect(rows.map((r) => r.textContent)).toEqual([
      '6100MealsActiveEditArchive',
      '6200TravelActiveEditArchive',
      '6900Old softwareArchivedEditRestore',
    ]);
  });

  it('adds a category, checking code and name first', async () => {
    const { sent } = serveChart();
    const { user } = renderApp('/accounting-categories', { session: adminSession() });
    const form = within(await screen.findByRole('form', { name: 'Add category' }));
    await user.click(form.getByRole('button', { name: 'Add category' }));
    expect(form.getByLabelText('Code')).toHaveAccessibleDescription('Enter a code.');
    expect(form.getByLabelText('Code')).toHaveFocus();
    expect(form.getByLabelText('Name')).toHaveAccessibleDescription('Enter a name.');
    await user.type(form.getByLabelText('Code'), '-61');
    await user.type(form.getByLabelText('Name'), 'Software');
    await user.click(form.getByRole('button', { name: 'Add category' }));
    expect(form.getByLabelText('Code')).toHaveAccessibleDescription(
      /starting and ending with a letter or digit/,
    );
    expect(sent).toHaveLength(0);

    await user.clear(form.getByLabelText('Code'));
    await user.type(form.getByLabelText('Code'), ' 6300 ');
    await user.click(form.getByRole('button', { name: 'Add category' }));
    expect(await screen.findByText('Added 6300 Software.')).toBeInTheDocument();
    expect(sent).toEqual([{ code: '6300', name: 'Software' }]);
    expect(rowOf(/^6300 Software/).getByText('Active')).toBeInTheDocument();
    // A new, empty form for the next one.
    const again = within(screen.getByRole('form', { name: 'Add category' }));
    expect(again.getByLabelText('Code')).toHaveValue('');
    expect(again.getByLabelText('Code')).toHaveFocus();
  });

  it('a code another category has is said under the code field, which keeps what was typed', async () => {
    serveChart();
    const { user } = renderApp('/accounting-categories', { session: adminSession() });
    const form = within(await screen.findByRole('form', { name: 'Add category' }));
    await user.type(form.getByLabelText('Code'), '6100');
    await user.type(form.getByLabelText('Name'), 'Food');
    await user.click(form.getByRole('button', { name: 'Add category' }));
    const code = form.getByLabelText('Code');
    expect(await form.findByText(/already has this code/)).toBeInTheDocument();
    expect(code).toHaveAccessibleDescription(
      'Another accounting category already has this code. Use a different code.',
    );
    expect(code).toHaveAttribute('aria-invalid', 'true');
    expect(code).toHaveFocus();
    expect(code).toHaveValue('6100');
    expect(form.getByLabelText('Name')).toHaveValue('Food');
    // Typing another code clears the refusal, which was about the one sent.
    await user.type(code, '.1');
    expect(code).not.toHaveAttribute('aria-invalid');
  });

  it('renames and recodes in the row; a taken code is said there too', async () => {
    const { sent } = serveChart();
    const { user } = renderApp('/accounting-categories', { session: adminSession() });
    await user.click(await screen.findByRole('button', { name: 'Edit 6200 Travel' }));
    const form = within(screen.getByRole('form', { name: 'Edit 6200 Travel' }));
    expect(form.getByLabelText('Code')).toHaveFocus();
    await user.clear(form.getByLabelText('Code'));
    await user.type(form.getByLabelText('Code'), '6100');
    await user.click(form.getByRole('button', { name: 'Save' }));
    expect(await form.findByText(/already has this code/)).toBeInTheDocument();

    await user.clear(form.getByLabelText('Code'));
    await user.type(form.getByLabelText('Code'), '6250');
    await user.clear(form.getByLabelText('Name'));
    await user.type(form.getByLabelText('Name'), 'Travel and lodging');
    await user.click(form.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Saved 6250 Travel and lodging.')).toBeInTheDocument();
    expect(sent).toEqual([
      { id: 'cat_travel', code: '6100' },
      { id: 'cat_travel', code: '6250', name: 'Travel and lodging' },
    ]);
    expect(screen.getByRole('button', { name: 'Edit 6250 Travel and lodging' })).toHaveFocus();

    // Escape leaves the form and sends nothing.
    await user.click(screen.getByRole('button', { name: 'Edit 6100 Meals' }));
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('form', { name: 'Edit 6100 Meals' })).toBeNull();
    expect(sent).toHaveLength(2);
  });

  it('archives and restores', async () => {
    const { sent } = serveChart();
    const { user } = renderApp('/accounting-categories', { session: adminSession() });
    await user.click(await screen.findByRole('button', { name: 'Archive 6100 Meals' }));
    expect(
      await screen.findByText(/^Archived 6100 Meals: it is no longer offered/),
    ).toBeInTheDocument();
    expect(rowOf(/^6100 Meals/).getByText('Archived')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Restore 6100 Meals' }));
    expect(await screen.findByText(/^Restored 6100 Meals/)).toBeInTheDocument();
    expect(sent).toEqual([
      { id: 'cat_meals', archived: true },
      { id: 'cat_meals', archived: false },
    ]);
  });

  it('finance reads the chart from the navigation: the categories, nothing to change', async () => {
    serveChart();
    server.use(serve('overview.get', () => HttpResponse.json(quietOverview())));
    const { user } = renderApp('/overview', { session: financeSession() });
    await user.click(
      within(await screen.findByRole('navigation', { name: 'Main' })).getByRole('link', {
        name: 'Chart of accounts',
      }),
    );
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Chart of accounts' }),
    ).toBeVisible();
    expect(rowOf(/Meals/).getByText('Active')).toBeInTheDocument();
    expect(screen.getByText(/Admins keep the chart/)).toBeInTheDocument();
    expect(
      screen.queryByRole('button', { name: /^(Edit|Archive|Restore|Add category)/ }),
    ).toBeNull();
    // None of the admin's panels: adding, importing, merchant rules, the close policy.
    expect(screen.queryAllByRole('heading', { level: 2 })).toEqual([]);
    expect(screen.queryByRole('columnheader', { name: 'Actions' })).toBeNull();
  });
});
