// A change made at the card service cannot be rolled back: it is recorded as `started` before
// the card service is asked, and its outcome after. A trail that cannot take the `started`
// record stops the change before anything is sent; one that loses only the outcome leaves the
// change made (an edit or a new sub account answers as done, a reveal shows no numbers) with
// its `started` record standing.
import type { CardService } from '@card-console/card-service-sim';
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import type supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardValuesSeen } from '../test/card-values';
import { FailingAuditStore } from '../test/failing-audit';
import { startTestApp, type TestApp, type TestSession } from '../test/harness';

let t: TestApp;
let trail: FailingAuditStore;
let admin: TestSession;

beforeAll(async () => {
  t = await startTestApp({
    sim: { transactions: 5 },
    audit: (jsonl) => {
      trail = new FailingAuditStore(jsonl);
      return trail;
    },
  });
  admin = await t.signIn('admin');
}, 60_000);
afterAll(async () => t?.close());

const recordsOf = async (requestId: string | undefined) =>
  (await t.audit.list({ limit: 1000 })).items.filter((r) => r.requestId === requestId);

let cards = 0;
const nextCard = () => t.sim.data.cards()[cards++]?.id ?? '';

/** One kind of card service change: the request, the call it makes, and what it changes there. */
interface Remote {
  name: string;
  action: 'card.update' | 'card.reveal' | 'subAccount.create';
  /** The card service call that makes the change (a simulator statistics key). */
  call: string;
  act: (given: string) => supertest.Test;
  /** What the card service holds that the change would alter. */
  state: (sim: CardService, given: string) => unknown;
  /** Each time a new subject: a card, or a sub account name. */
  next: () => string;
}

const remotes: Remote[] = [
  {
    name: 'a card’s name and limit',
    action: 'card.update',
    call: 'PATCH /card/:id',
    next: nextCard,
    act: (id) =>
      t.request
        .patch(`/api/cards/${id}`)
        .set(admin.headers())
        .send({
          name: 'Renamed in the trail test',
          transactionSizeLimit: { maximumCents: 12_345 },
          expected: cardValuesSeen(t.sim, id),
        }),
    state: (sim, id) => cardValuesSeen(sim, id),
  },
  {
    name: 'a reveal',
    action: 'card.reveal',
    call: 'GET /card/:id',
    next: nextCard,
    act: (id) =>
      t.request
        .post(`/api/cards/${id}/reveal`)
        .set(admin.headers())
        .send({ reason: 'card holder on the phone' }),
    state: () => undefined,
  },
  {
    name: 'a new sub account',
    action: 'subAccount.create',
    call: 'POST /sub-account',
    next: (() => {
      let n = 0;
      return () => `Trail test ${++n}`;
    })(),
    act: (name) => t.request.post('/api/sub-accounts').set(admin.headers()).send({ name }),
    state: (sim, name) => sim.data.subAccounts().filter((s) => s.name === name).length,
  },
];

describe('a change at the card service', () => {
  it.each(remotes)(
    '$name: a trail that cannot record its start stops it before anything is sent (503, nothing recorded)',
    async (remote) => {
      const given = remote.next();
      const before = remote.state(t.sim, given);
      t.sim.stats.reset();

      const res = await trail.failing(() => remote.act(given));

      expect(res.status, JSON.stringify(res.body)).toBe(503);
      const problem = apiErrorBodySchema.parse(res.body);
      expect(problem.code).toBe('audit_unavailable');
      expect(res.text).not.toMatch(/"pan"|"cvv"/);
      expect(t.sim.stats.count(remote.call)).toBe(0);
      expect(remote.state(t.sim, given)).toEqual(before);
      expect(await recordsOf(problem.requestId)).toEqual([]);
      expect(trail.asked.filter((r) => r.requestId === problem.requestId)).toMatchObject([
        { action: remote.action, outcome: 'started' },
      ]);
    },
  );

  it.each(remotes)(
    '$name: is recorded as started before the card service is asked, then its success',
    async (remote) => {
      const given = remote.next();
      let calledBeforeStart = -1;
      const res = await trail.failing(
        () => remote.act(given),
        (record) => {
          // Not a failure: a look at the card service at the moment the start is recorded.
          if (record.outcome === 'started') calledBeforeStart = t.sim.stats.count(remote.call);
          return false;
        },
      );
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
      t.sim.stats.reset();
      expect(calledBeforeStart).toBe(0);
      expect(await recordsOf(res.headers['x-request-id'])).toMatchObject([
        { action: remote.action, outcome: 'success' },
        { action: remote.action, outcome: 'started' },
      ]);
    },
  );
});

describe('when the trail loses only the outcome of a change the card service made', () => {
  it('an edit answers 200 with the card as changed; its started record stands and the loss is logged', async () => {
    const id = nextCard();
    const res = await trail.failing(
      () => remotes[0]?.act(id) as supertest.Test,
      (record) => record.outcome === 'success',
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ name: 'Renamed in the trail test' });
    expect(cardValuesSeen(t.sim, id)).toMatchObject({
      name: 'Renamed in the trail test',
      maximumCents: 12_345,
    });
    const requestId = res.headers['x-request-id'];
    expect(await recordsOf(requestId)).toMatchObject([
      {
        action: 'card.update',
        outcome: 'started',
        cardId: id,
        after: { name: 'Renamed in the trail test', maximumCents: 12_345 },
      },
    ]);
    expect(
      t.logs.some(
        (line) => line.includes(requestId ?? '-') && line.includes('started record stands'),
      ),
    ).toBe(true);
  });

  it('a reveal shows no numbers (503): the card service was asked, and the started record says so', async () => {
    const id = nextCard();
    t.sim.stats.reset();
    const res = await trail.failing(
      () => remotes[1]?.act(id) as supertest.Test,
      (record) => record.outcome === 'success',
    );
    expect(res.status).toBe(503);
    const problem = apiErrorBodySchema.parse(res.body);
    expect(problem.code).toBe('audit_unavailable');
    expect(problem.detail).toMatch(/numbers are not shown/);
    const secret = t.sim.data.card(id);
    expect(res.text).not.toContain(secret?.pan ?? 'no pan');
    expect(t.sim.stats.count('GET /card/:id')).toBe(1);
    expect(await recordsOf(problem.requestId)).toMatchObject([
      { action: 'card.reveal', outcome: 'started', cardId: id },
    ]);
  });

  it('a new sub account answers 201 and is there; its started record stands', async () => {
    const name = 'Outcome lost';
    const res = await trail.failing(
      () => remotes[2]?.act(name) as supertest.Test,
      (record) => record.outcome === 'success',
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(t.sim.data.subAccounts().filter((s) => s.name === name)).toHaveLength(1);
    expect(await recordsOf(res.headers['x-request-id'])).toMatchObject([
      { action: 'subAccount.create', outcome: 'started', detail: `name "${name}"` },
    ]);
  });

  it('a card service failure after the start is recorded as failed, and the person gets its error', async () => {
    const id = nextCard();
    t.sim.faults.enqueue({ kind: 'status', status: 503, method: 'PATCH' });
    const res = await remotes[0]?.act(id);
    expect(res?.status).toBe(503);
    expect(apiErrorBodySchema.parse(res?.body).code).toBe('upstream_unavailable');
    expect(await recordsOf(res?.body.requestId)).toMatchObject([
      { action: 'card.update', outcome: 'failed', detail: 'upstream_unavailable' },
      { action: 'card.update', outcome: 'started' },
    ]);
  });
});
