// Webhook targets: where admins send alerts, with the secret each request is signed with. The
// URL is checked against the operator's policy when saved (https, public addresses) and again
// on every connection by the sender; the secret is made here, shown once at creation, and
// never listed again.
import { randomBytes } from 'node:crypto';
import { type Audited, committed, type SqlEngine } from '../../platform/sql/sql-engine';

export interface WebhookTargetRecord {
  id: string;
  name: string;
  url: string;
  createdBy: string;
  createdAt: string;
}

interface TargetRow {
  id: string;
  name: string;
  url: string;
  secret: string;
  created_by: string;
  created_at: Date | string;
}

const view = (row: TargetRow): WebhookTargetRecord => ({
  id: row.id,
  name: row.name,
  url: row.url,
  createdBy: row.created_by,
  createdAt: new Date(row.created_at).toISOString(),
});

/** 256 random bits, hex: what the receiver keys its HMAC with. */
export const newWebhookSecret = () => randomBytes(32).toString('hex');

/** A target of this name (whatever its case) is there already: one name, one target. */
export class WebhookTargetExistsError extends Error {
  constructor(readonly existing: string) {
    super(`a webhook target named ${existing} exists`);
    this.name = 'WebhookTargetExistsError';
  }
}

export class WebhookTargetStore {
  constructor(private readonly engine: SqlEngine) {}

  async list(): Promise<WebhookTargetRecord[]> {
    const rows = await this.engine.query<TargetRow>(
      'SELECT id, name, url, secret, created_by, created_at FROM alert_webhook_target ORDER BY created_at, id',
    );
    return rows.map(view);
  }

  /** The target with its secret: for the sender only. */
  async withSecret(id: string): Promise<(WebhookTargetRecord & { secret: string }) | undefined> {
    const [row] = await this.engine.query<TargetRow>(
      'SELECT id, name, url, secret, created_by, created_at FROM alert_webhook_target WHERE id = $1',
      [id],
    );
    return row ? { ...view(row), secret: row.secret } : undefined;
  }

  async exists(id: string): Promise<boolean> {
    const rows = await this.engine.query('SELECT 1 FROM alert_webhook_target WHERE id = $1', [id]);
    return rows.length > 0;
  }

  /** Saves a target (its URL already checked) with a new secret, returned this once. */
  async create(
    input: { name: string; url: string },
    by: string,
    at: Date,
    audited?: Audited<WebhookTargetRecord>,
  ): Promise<WebhookTargetRecord & { secret: string }> {
    const secret = newWebhookSecret();
    return this.engine.transaction(async (tx) => {
      // Names are what a rule's form offers: two alike would be two choices no one can tell
      // apart (and a create sent twice, two targets). Decided under one lock, so two creates at
      // once cannot both pass.
      await tx.query(
        "SELECT count(pg_advisory_xact_lock(hashtextextended('webhook-target-names', 0)))",
      );
      const [same] = await tx.query<{ name: string }>(
        'SELECT name FROM alert_webhook_target WHERE lower(name) = lower($1) LIMIT 1',
        [input.name],
      );
      if (same) throw new WebhookTargetExistsError(same.name);
      const [row] = await tx.query<TargetRow>(
        `INSERT INTO alert_webhook_target (id, name, url, secret, created_by, created_at)
         VALUES ($1, $2, $3, $4, $5, $6)
         RETURNING id, name, url, secret, created_by, created_at`,
        [
          randomBytes(16).toString('base64url'),
          input.name,
          input.url,
          secret,
          by,
          at.toISOString(),
        ],
      );
      // The record never sees the secret.
      const saved = await committed(tx, view(row as TargetRow), audited);
      return { ...saved, secret };
    });
  }

  /** The names of the rules that send to target `id`. */
  async rulesUsing(id: string): Promise<string[]> {
    const rows = await this.engine.query<{ name: string }>(
      'SELECT name FROM alert_rule WHERE webhook_target_id = $1 ORDER BY created_at, id',
      [id],
    );
    return rows.map((r) => r.name);
  }

  /** Removes a target; its record as it was, or undefined when there was none. */
  async delete(
    id: string,
    audited?: Audited<WebhookTargetRecord>,
  ): Promise<WebhookTargetRecord | undefined> {
    return this.engine.transaction(async (tx) => {
      const [row] = await tx.query<TargetRow>(
        `DELETE FROM alert_webhook_target WHERE id = $1
         RETURNING id, name, url, secret, created_by, created_at`,
        [id],
      );
      return row ? committed(tx, view(row), audited) : undefined;
    });
  }
}
