// Demo mode's card owners and teams (issue 49): the card service has none, so the demo gives
// each card its holder (the name its card's name starts with: "Elena Walsh (office)" is Elena
// Walsh's) and a team, so "spend by person" and "by team" can be tried at once. Teams follow a
// card's purpose where its name gives one, else a hash of the holder's name: generated, and the
// same at every start. Given only when no card has an owner or a team (the first start, or after
// a reset), so what admins change stays.
import type { CardOwnersStore } from '../features/cards';

const DEMO_TEAMS = ['Sales', 'Engineering', 'Operations', 'Marketing'] as const;
const TEAM_OF_PURPOSE: Record<string, (typeof DEMO_TEAMS)[number]> = {
  travel: 'Sales',
  software: 'Engineering',
  events: 'Marketing',
  office: 'Operations',
};

/** The holder and team a demo card's name gives: `Name (purpose)` or `Name`. */
export function demoOwnerOf(cardName: string): { owner: string; team: string } | undefined {
  const match = /^(?<holder>[^()]+?)\s*(?:\((?<purpose>[^()]+)\))?$/u.exec(cardName.trim());
  const holder = match?.groups?.holder?.trim();
  if (!holder) return undefined;
  const purpose = match?.groups?.purpose?.trim().toLowerCase();
  let hash = 0;
  for (const char of holder) hash = (hash * 31 + (char.codePointAt(0) ?? 0)) >>> 0;
  const team =
    (purpose && TEAM_OF_PURPOSE[purpose]) ?? (DEMO_TEAMS[hash % DEMO_TEAMS.length] as string);
  return { owner: holder, team };
}

export async function seedDemoOwners(
  store: CardOwnersStore,
  cards: readonly { id: string; name: string }[],
  now: Date,
): Promise<void> {
  const given = await store.list();
  if (given.owners.length > 0 || given.teams.length > 0) return;
  for (const card of cards) {
    const demo = demoOwnerOf(card.name);
    if (!demo) continue;
    await store.set(card.id, { owner: { name: demo.owner }, team: demo.team }, 'demo', now);
  }
}
