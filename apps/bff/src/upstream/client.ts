import type { Role } from '@card-console/shared/api/meta';
import {
  type UpstreamCard,
  type UpstreamCardListQuery,
  type UpstreamCardPatchBody,
  upstreamCardPatchBodySchema,
  upstreamCardSchema,
} from '@card-console/shared/upstream/card';
import { type ListEnvelope, listEnvelopeSchema } from '@card-console/shared/upstream/common';
import {
  type UpstreamSubAccount,
  upstreamSubAccountCreateBodySchema,
  upstreamSubAccountCreatedSchema,
  upstreamSubAccountSchema,
} from '@card-console/shared/upstream/sub-account';
import {
  type UpstreamTransaction,
  upstreamTransactionSchema,
} from '@card-console/shared/upstream/transaction';
import { z } from 'zod';
import { AppError } from '../core/app-error';
import { noMetrics } from '../platform/metrics/metrics';
import { createServicePace, type ServicePace } from '../platform/pagination/pace';
import type { TraceContext } from '../platform/tracing/trace-context';
import { type CallEnvironment, checkAnswer, executeCall } from './call';
import { cleanCard, cleanPage, cleanSubAccount, cleanTransaction } from './clean-answer';
import { clientDefaults, type UpstreamClientOptions } from './client-options';
import { createCoalescer } from './coalescer';
import { buildRequest, type OperationName, type QueryValues } from './operations';
import { createLane } from './resilience';
import { Agent } from './undici-agent';
import { createUpstreamRedactor } from './upstream-redactor';

export type { UpstreamClientOptions } from './client-options';

/**
 * Who a call is for: the request id and the trace travel upstream (a shared read carries its
 * first caller's); the role keys read coalescing.
 */
export interface CallContext {
  requestId: string;
  trace?: TraceContext;
  role?: Role;
  /** Aborted when the browser goes away; such calls are never shared. */
  signal?: AbortSignal;
  /**
   * A bulk walk (the CSV export, a limit preview, the Overview's day walks, the card
   * directory): its calls go through a circuit of their own, so a storm of walks meeting an
   * overloaded service never opens the circuit for people's reads.
   */
  bulk?: boolean;
}

export interface TransactionListParams {
  subAccountId: string;
  fromDate?: number;
  toDate?: number;
  status?: string;
  cardId?: string;
  cursor?: string;
}

/**
 * A list page whose items are checked against their schema only when asked for, so a walker
 * can request the next page (its cursor is already checked) before spending time on these.
 */
export interface DeferredPage<T> {
  metadata: ListEnvelope<T>['metadata'];
  /** The page's items; a 502 upstream_invalid_response if they do not match their schema. */
  items(): T[];
}

export interface UpstreamClient {
  /** `fresh` never joins a read already in flight, which may predate the caller's lock. */
  listSubAccounts(
    ctx: CallContext,
    query: { cursor?: string },
    options?: { fresh?: boolean },
  ): Promise<ListEnvelope<UpstreamSubAccount>>;
  createSubAccount(ctx: CallContext, body: { name: string }): Promise<{ id: string; name: string }>;
  listCards(ctx: CallContext, query: UpstreamCardListQuery): Promise<ListEnvelope<UpstreamCard>>;
  /**
   * `withSecrets` asks for PAN and CVV: only the reveal uses it, and it is never shared.
   * `fresh` never joins a read already in flight, which may predate the caller's lock (an edit).
   */
  getCard(
    ctx: CallContext,
    id: string,
    options?: { withSecrets?: boolean; fresh?: boolean },
  ): Promise<UpstreamCard>;
  updateCard(ctx: CallContext, id: string, body: UpstreamCardPatchBody): Promise<UpstreamCard>;
  listTransactions(
    ctx: CallContext,
    query: TransactionListParams,
  ): Promise<ListEnvelope<UpstreamTransaction>>;
  /** One page of transactions with its items checked later (the CSV export's walk). */
  listTransactionsDeferred(
    ctx: CallContext,
    query: TransactionListParams,
  ): Promise<DeferredPage<UpstreamTransaction>>;
  getTransaction(ctx: CallContext, id: string): Promise<UpstreamTransaction>;
  /**
   * The pace of every walk of the card service (`platform/pagination/pace.ts`), told of each
   * 429 any call meets: the walks take their turns from it. Absent in test doubles.
   */
  readonly pace?: ServicePace;
  /** Throws an AppError when the upstream cannot serve a simple read (readiness probe). */
  checkReady(requestId: string): Promise<void>;
  close(): Promise<void>;
}

const READY_DEADLINE_MS = 3_000;
const subAccountPage = listEnvelopeSchema(upstreamSubAccountSchema);
const cardPage = listEnvelopeSchema(upstreamCardSchema);
const transactionPage = listEnvelopeSchema(upstreamTransactionSchema);
const uncheckedTransactionPage = listEnvelopeSchema(z.unknown());
const transactionItems = z.array(upstreamTransactionSchema);

export function createUpstreamClient(options: UpstreamClientOptions): UpstreamClient {
  const o = { ...clientDefaults, ...options };
  const baseUrl = new URL(o.baseUrl);
  if (baseUrl.protocol !== 'http:' && baseUrl.protocol !== 'https:') {
    throw new Error('the card service base URL must be http or https');
  }
  const dispatcher = new Agent({
    connections: o.connections,
    keepAliveTimeout: 10_000,
    pipelining: 1,
  });
  // Every string of every answer, and every upstream string logged, goes through this.
  const redact = createUpstreamRedactor(o.apiKey);
  const metrics = o.metrics ?? noMetrics;
  const bulkSlots = Math.max(1, Math.min(o.bulkConcurrency, o.connections - 1));
  const pace = createServicePace({ ceiling: bulkSlots, rate: o.rateLimit, now: o.now });
  metrics.trackWalkPace(() => pace.state());
  const env: CallEnvironment = {
    dispatcher,
    baseUrl,
    apiKey: o.apiKey,
    redact,
    logger: o.logger,
    attemptTimeoutMs: o.attemptTimeoutMs,
    deadlineMs: o.deadlineMs,
    maxBodyBytes: o.maxBodyBytes,
    lane: createLane({ ...o, lane: 'reads', metrics }),
    bulkHold: { until: 0 },
    pace,
    yields: false,
    metrics,
    now: o.now,
  };
  // The walks' own lane: their failures never open the circuit for people's calls.
  const bulkEnv: CallEnvironment = {
    ...env,
    lane: createLane({
      ...o,
      lane: 'bulk',
      concurrency: bulkSlots,
      metrics,
    }),
    yields: true,
  };
  const coalescer = createCoalescer();

  // Answers are redacted as they arrive, before a coalesced read shares them.
  const clean = {
    card: (card: UpstreamCard) => cleanCard(card, redact),
    cardPage: (page: ListEnvelope<UpstreamCard>) => cleanPage(page, cleanCard, redact),
    subAccount: (sub: { id: string; name: string }) => cleanSubAccount(sub, redact),
    subAccountPage: (page: ListEnvelope<UpstreamSubAccount>) =>
      cleanPage(page, cleanSubAccount, redact),
    transaction: (t: UpstreamTransaction) => cleanTransaction(t, redact),
    transactionPage: (page: ListEnvelope<UpstreamTransaction>) =>
      cleanPage(page, cleanTransaction, redact),
    /** Items still unchecked: only the cursor now, the items once they are checked. */
    uncheckedPage: (page: ListEnvelope<unknown>) => cleanPage(page, (item) => item, redact),
  };

  async function read<S extends z.ZodType>(
    ctx: CallContext,
    name: OperationName,
    schema: S,
    cleanAnswer: (answer: z.output<S>) => z.output<S>,
    opts: { id?: string; query?: QueryValues; share?: boolean } = {},
  ): Promise<z.output<S>> {
    const request = buildRequest(name, opts.id, opts.query);
    const run = () =>
      executeCall(ctx.bulk ? bulkEnv : env, {
        request,
        requestId: ctx.requestId,
        trace: ctx.trace,
        schema,
        ...(ctx.signal ? { signal: ctx.signal } : {}),
      }).then(cleanAnswer);
    if (opts.share === false || ctx.signal) return run();
    // Keyed by role too: a shared answer never crosses permission levels. And by lane: a
    // person's read never waits on a bulk walk's retries, nor shares its circuit.
    const key = `${ctx.role ?? 'system'}${ctx.bulk ? ' bulk' : ''} ${request.method} ${request.pathAndQuery}`;
    return coalescer.run(key, run, () => metrics.coalescedRead(request.template));
  }

  async function write<S extends z.ZodType>(
    ctx: CallContext,
    name: OperationName,
    schema: S,
    cleanAnswer: (answer: z.output<S>) => z.output<S>,
    body: unknown,
    id?: string,
  ): Promise<z.output<S>> {
    const request = buildRequest(name, id);
    return cleanAnswer(
      await executeCall(env, {
        request,
        requestId: ctx.requestId,
        trace: ctx.trace,
        schema,
        body,
      }),
    );
  }

  return {
    pace,
    listSubAccounts: (ctx, query, opts) =>
      read(ctx, 'listSubAccounts', subAccountPage, clean.subAccountPage, {
        query: { cursor: query.cursor },
        share: !opts?.fresh,
      }),
    createSubAccount: (ctx, body) =>
      write(
        ctx,
        'createSubAccount',
        upstreamSubAccountCreatedSchema,
        clean.subAccount,
        validOutgoing(upstreamSubAccountCreateBodySchema, body),
      ),
    listCards: (ctx, query) =>
      read(ctx, 'listCards', cardPage, clean.cardPage, { query: { ...query } }),
    getCard: (ctx, id, opts) =>
      opts?.withSecrets
        ? read(ctx, 'getCard', upstreamCardSchema, clean.card, {
            id,
            query: { include_pan: 'true', include_cvv: 'true' },
            share: false,
          })
        : read(ctx, 'getCard', upstreamCardSchema, clean.card, { id, share: !opts?.fresh }),
    updateCard: (ctx, id, body) =>
      write(
        ctx,
        'updateCard',
        upstreamCardSchema,
        clean.card,
        validOutgoing(upstreamCardPatchBodySchema, body),
        id,
      ),
    listTransactions: (ctx, q) =>
      read(ctx, 'listTransactions', transactionPage, clean.transactionPage, {
        query: transactionQuery(q),
      }),
    async listTransactionsDeferred(ctx, q) {
      // Never shared: a coalesced listTransactions of the same query expects checked items.
      const page = await read(
        ctx,
        'listTransactions',
        uncheckedTransactionPage,
        clean.uncheckedPage,
        {
          query: transactionQuery(q),
          share: false,
        },
      );
      const log = () =>
        o.logger.child({
          requestId: ctx.requestId,
          traceId: ctx.trace?.traceId,
          upstream: 'GET /transaction',
        });
      let checked: UpstreamTransaction[] | undefined;
      return {
        metadata: page.metadata,
        items: () => {
          checked ??= checkAnswer(transactionItems, page.items, log).map(clean.transaction);
          return checked;
        },
      };
    },
    getTransaction: (ctx, id) =>
      read(ctx, 'getTransaction', upstreamTransactionSchema, clean.transaction, { id }),
    async checkReady(requestId) {
      // A probe must answer fast: a short deadline, and never shared with people's reads.
      const request = buildRequest('listSubAccounts');
      await executeCall(env, {
        request,
        requestId,
        schema: subAccountPage,
        deadlineMs: READY_DEADLINE_MS,
      });
    },
    close: () => dispatcher.close(),
  };
}

function transactionQuery(q: TransactionListParams): QueryValues {
  return {
    subAccountId: q.subAccountId,
    from_date: q.fromDate,
    to_date: q.toDate,
    status: q.status,
    card_id: q.cardId,
    cursor: q.cursor,
  };
}

/** A body we send is checked against the upstream's request schema first: a bug here is ours. */
function validOutgoing<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const result = schema.safeParse(body);
  if (!result.success) throw new AppError(400, 'invalid_body', 'The change is not valid.');
  return result.data;
}
