// Each card's owner and team (issue 49, decision 0126), in the SQL store (PostgreSQL or the
// embedded engine; migration `card-owners`): the card service has neither. Owners and teams are
// matched by key (`ownershipKeyOf`: trimmed, spaces folded, lower case); every card of one key
// shows one spelling, the one first given, so "spend by owner" never splits a person in two by
// how a name was typed. A change runs under a transaction-scoped advisory lock, so two admins
// naming the same new owner at once agree on the spelling. The index's lists and totals and the
// alerts read the table in their own queries, in the same database: a change is seen by every
// replica at its next request. On the embedded engine the cards' ownership is read from a copy of
// the table this store keeps (`ofCards`).
import { type CardOwnership, ownershipKeyOf } from '@card-console/shared/api/card-owners';
import type { Card } from '@card-console/shared/api/cards';
import {
  type Audited,
  committed,
  type SqlEngine,
  type SqlQueryable,
} from '../../platform/sql/sql-engine';
import { storable } from '../../platform/sql/storable';

export interface OwnershipChange {
  owner: { name: string; email?: string | undefined } | null;
  team: string | null;
}

/** What a change did: the card's ownership before and after (none: no owner and no team). */
export interface OwnershipChanged {
  before: CardOwnership | undefined;
  after: CardOwnership | undefined;
}

interface Row {
  card_id: string;
  owner_name: string | null;
  owner_email: string | null;
  team_name: string | null;
  updated_by: string;
  updated_at: Date | string;
  person: boolean | null;
}

/** The row's columns. */
const COLUMNS = `co.card_id, co.owner_name, co.owner_email, co.team_name, co.updated_by,
  co.updated_at`;
/** The row's columns, with whether its owner's email is a person's in People. */
const SELECTED = `${COLUMNS},
  EXISTS (SELECT 1 FROM person p WHERE p.email = co.owner_email) AS person`;

const ownershipOf = (r: Row): CardOwnership => ({
  cardId: r.card_id,
  ...(r.owner_name === null
    ? {}
    : {
        owner: {
          name: r.owner_name,
          ...(r.owner_email === null ? {} : { email: r.owner_email, person: r.person === true }),
        },
      }),
  ...(r.team_name === null ? {} : { team: r.team_name }),
  updatedBy: r.updated_by,
  updatedAt: new Date(r.updated_at).toISOString(),
});

const lock = (tx: SqlQueryable) =>
  tx.query("SELECT count(pg_advisory_xact_lock(hashtextextended('card_owner', 0)))");

/** The spelling cards of `key` already show, or `name` for the first. */
async function spelling(
  tx: SqlQueryable,
  column: 'owner' | 'team',
  key: string,
  name: string,
  cardId: string,
): Promise<string> {
  const [known] = await tx.query<{ name: string }>(
    `SELECT ${column}_name AS name FROM card_owner
      WHERE ${column}_key = $1 AND card_id <> $2 ORDER BY updated_at, card_id LIMIT 1`,
    [key, cardId],
  );
  return known?.name ?? name;
}

export class CardOwnersStore {
  /**
   * The embedded engine's `card_owner`, read whole once and again after each change: that engine
   * is this process's alone (PGlite, in memory or on its own DATA_DIR), `set` is the only writer
   * of the table, and the stores hand every caller one instance per engine (stores.ts), so the
   * copy is the table. A statement there costs ~0.4–1 ms of the one thread's CPU, which every
   * card list and card paid (the proxied read's CPU a request: 1,368 µs without it, 2,977 µs
   * with it). Whether an owner's email is a person's is still asked of People each time.
   * PostgreSQL is shared by replicas: read there each time.
   */
  private copy: { generation: number; rows: Promise<Map<string, Row>> } | undefined;
  /** Bumped as each change starts and ends: a copy read meanwhile is read again. */
  private generation = 0;
  /** Changes under way: reads go to the table until they end. */
  private changing = 0;

  constructor(private readonly engine: SqlEngine) {}

  /** The rows of `stored` (ids as stored), with whether each owner's email is a person's. */
  private async rowsOf(stored: readonly string[]): Promise<Row[]> {
    if (this.engine.kind !== 'embedded' || this.changing > 0) {
      return this.engine.query<Row>(
        `SELECT ${SELECTED} FROM card_owner co WHERE co.card_id = ANY($1::text[])`,
        [stored],
      );
    }
    if (this.copy?.generation !== this.generation) {
      const rows = this.engine
        .query<Row>(`SELECT ${COLUMNS}, NULL AS person FROM card_owner co`)
        .then((all) => new Map(all.map((r) => [r.card_id, r])));
      const copy = { generation: this.generation, rows };
      this.copy = copy;
      rows.catch(() => {
        if (this.copy === copy) this.copy = undefined;
      });
    }
    const all = await this.copy.rows;
    const rows = stored.flatMap((id) => all.get(id) ?? []);
    const emails = rows.flatMap((r) => (r.owner_email === null ? [] : [r.owner_email]));
    if (emails.length === 0) return rows;
    const people = await this.peopleAmong(emails);
    return rows.map((r) => ({ ...r, person: r.owner_email !== null && people.has(r.owner_email) }));
  }

  /** Which of `emails` are people's in People. */
  private async peopleAmong(emails: readonly string[]): Promise<Set<string>> {
    if (emails.length === 0) return new Set();
    const rows = await this.engine.query<{ email: string }>(
      'SELECT email FROM person WHERE email = ANY($1::text[])',
      [emails],
    );
    return new Set(rows.map((p) => p.email));
  }

  /** The ownership of each of `cardIds` that has an owner or a team. */
  async ofCards(cardIds: readonly string[]): Promise<Map<string, CardOwnership>> {
    if (cardIds.length === 0) return new Map();
    const rows = await this.rowsOf([...new Set(cardIds.map(storable))]);
    // Keyed by the ids as asked (a card service's id may hold what the engines cannot store).
    const byStored = new Map(rows.map((r) => [r.card_id, r]));
    return new Map(
      cardIds.flatMap((id) => {
        const row = byStored.get(storable(id));
        return row ? [[id, { ...ownershipOf(row), cardId: id }] as const] : [];
      }),
    );
  }

  /** `cards`, each with its owner and team when it has either. */
  async withOwnership<C extends Card>(cards: readonly C[]): Promise<C[]> {
    const owned = await this.ofCards(cards.map((c) => c.id));
    return cards.map((card) => {
      const o = owned.get(card.id);
      if (!o) return card;
      return { ...card, ...(o.owner && { owner: o.owner }), ...(o.team && { team: o.team }) };
    });
  }

  /**
   * The cards of the owner and of the team named (by name, in any spelling; both: the cards of
   * both), or undefined when neither is named: every card.
   */
  async cardsOf(filter: {
    owner?: string | undefined;
    team?: string | undefined;
  }): Promise<Set<string> | undefined> {
    if (filter.owner === undefined && filter.team === undefined) return undefined;
    const rows = await this.engine.query<{ card_id: string }>(
      `SELECT card_id FROM card_owner
        WHERE ($1::text IS NULL OR owner_key = $1::text)
          AND ($2::text IS NULL OR team_key = $2::text)`,
      [
        filter.owner === undefined ? null : ownershipKeyOf(filter.owner),
        filter.team === undefined ? null : ownershipKeyOf(filter.team),
      ],
    );
    return new Set(rows.map((r) => r.card_id));
  }

  /**
   * Every owner and team given, by name, with how many cards each has; an owner's email is the
   * one most of its cards give (a tie: the first in order).
   */
  async list(): Promise<{
    owners: { name: string; email?: string; person?: boolean; cards: number }[];
    teams: { name: string; cards: number }[];
  }> {
    const [owners, teams] = await Promise.all([
      this.engine.query<{ name: string; email: string | null; person: boolean; cards: string }>(
        `SELECT min(owner_name) AS name, count(*)::text AS cards,
                (SELECT e.owner_email FROM card_owner e
                  WHERE e.owner_key = co.owner_key AND e.owner_email IS NOT NULL
                  GROUP BY e.owner_email ORDER BY count(*) DESC, e.owner_email LIMIT 1) AS email,
                false AS person
           FROM card_owner co WHERE owner_key IS NOT NULL
          GROUP BY owner_key ORDER BY owner_key`,
      ),
      this.engine.query<{ name: string; cards: string }>(
        `SELECT min(team_name) AS name, count(*)::text AS cards
           FROM card_owner WHERE team_key IS NOT NULL GROUP BY team_key ORDER BY team_key`,
      ),
    ]);
    const people = await this.peopleAmong(
      owners.flatMap((o) => (o.email === null ? [] : [o.email])),
    );
    return {
      owners: owners.map((o) => ({
        name: o.name,
        ...(o.email === null ? {} : { email: o.email, person: people.has(o.email) }),
        cards: Number(o.cards),
      })),
      teams: teams.map((t) => ({ name: t.name, cards: Number(t.cards) })),
    };
  }

  /**
   * The card's owner and team become `change`'s (both null: the card has neither, and its row
   * goes). A name of an owner or team other cards have takes their spelling. A change that
   * leaves them as they are (or takes off what is not there) writes nothing: `after` is `before`.
   */
  async set(
    cardId: string,
    change: OwnershipChange,
    actor: string,
    at: Date,
    audited?: Audited<OwnershipChanged>,
  ): Promise<OwnershipChanged> {
    this.changing++;
    this.generation++;
    try {
      return await this.change(storable(cardId), cardId, change, actor, at, audited);
    } finally {
      this.generation++;
      this.changing--;
    }
  }

  private change(
    cardId: string,
    asked: string,
    change: OwnershipChange,
    actor: string,
    at: Date,
    audited?: Audited<OwnershipChanged>,
  ): Promise<OwnershipChanged> {
    return this.engine.transaction(async (tx) => {
      await lock(tx);
      const [was] = await tx.query<Row>(
        `SELECT ${SELECTED} FROM card_owner co WHERE co.card_id = $1`,
        [cardId],
      );
      const before = was && { ...ownershipOf(was), cardId: asked };
      if (change.owner === null && change.team === null) {
        if (!before) return { before, after: undefined };
        await tx.query('DELETE FROM card_owner WHERE card_id = $1', [cardId]);
        return committed(tx, { before, after: undefined }, audited);
      }
      const ownerKey = change.owner && ownershipKeyOf(change.owner.name);
      const teamKey = change.team === null ? null : ownershipKeyOf(change.team);
      const ownerName =
        change.owner && ownerKey !== null
          ? await spelling(tx, 'owner', ownerKey, change.owner.name.trim(), cardId)
          : null;
      const teamName =
        change.team !== null && teamKey !== null
          ? await spelling(tx, 'team', teamKey, change.team.trim(), cardId)
          : null;
      const email = change.owner?.email ?? null;
      // Given as it is (each value as this store would keep it): nothing is written, no record.
      if (
        was &&
        was.owner_name === ownerName &&
        was.owner_email === email &&
        was.team_name === teamName
      ) {
        return { before, after: before };
      }
      const [row] = await tx.query<Row>(
        `WITH written AS (
           INSERT INTO card_owner (card_id, owner_name, owner_key, owner_email, team_name,
                                   team_key, updated_by, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
           ON CONFLICT (card_id) DO UPDATE SET owner_name = EXCLUDED.owner_name,
             owner_key = EXCLUDED.owner_key, owner_email = EXCLUDED.owner_email,
             team_name = EXCLUDED.team_name, team_key = EXCLUDED.team_key,
             updated_by = EXCLUDED.updated_by, updated_at = EXCLUDED.updated_at
           RETURNING *)
         SELECT ${SELECTED} FROM written co`,
        [cardId, ownerName, ownerKey, email, teamName, teamKey, actor, at.toISOString()],
      );
      const after = { ...ownershipOf(row as Row), cardId: asked };
      return committed(tx, { before, after }, audited);
    });
  }
}
