// Demo mode's chart of accounts: a small business's usual expense accounts, so the month close
// can be tried at once. Added only to an empty chart (the first start, or after a reset).
import type { NotesStore } from '../features/notes/notes-store';

const DEMO_CHART = [
  ['6000', 'Advertising and marketing'],
  ['6100', 'Meals and entertainment'],
  ['6200', 'Travel'],
  ['6300', 'Software and subscriptions'],
  ['6400', 'Office supplies'],
  ['6500', 'Telephone and internet'],
  ['6600', 'Professional fees'],
  ['6700', 'Vehicles and fuel'],
  ['6800', 'Training and education'],
  ['6900', 'Bank and card fees'],
  ['7000', 'Shipping and postage'],
  ['7100', 'Utilities'],
] as const;

export async function seedDemoChart(store: NotesStore, now: Date): Promise<void> {
  if ((await store.categories()).length > 0) return;
  await store.importCategories(
    DEMO_CHART.map(([code, name]) => ({ code, name })),
    now,
  );
}
