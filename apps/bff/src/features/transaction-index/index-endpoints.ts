import { defineFeature } from '../../core/endpoint';
import { who } from '../../platform/sessions/who';
import {
  createLocalTimes,
  exportContentDisposition,
  exportDays,
  exportStreamContext,
  streamCsv,
  withExportSlot,
} from '../transactions';
import { categoryCatalog } from './category-catalog';
import { type IndexSearchDeps, indexSearchOf } from './index-search-service';
import { streamZip } from './stream-zip';

export const transactionIndexFeature = defineFeature(
  'transaction-index',
  (deps: IndexSearchDeps) => ({ deps, search: indexSearchOf(deps) }),
  (endpoint) => [
    endpoint('index.transactions', {
      summary:
        "A page of the transactions of every sub account (or those named) from the BFF's index: searched, filtered, sorted, and how fresh they are",
      example: '/api/index/transactions?status=declined&status=failed&sort=amount',
      handler: ({ req, services, query }) => services.search.rows(who(req), query),
    }),
    endpoint('index.totals', {
      summary:
        'The figures of the same filtered set (count and sums by the definition of money), with `by` its totals by a dimension, and how fresh they are',
      example: '/api/index/transactions/totals?status=declined&by=card',
      handler: ({ req, services, query }) => services.search.totals(who(req), query),
    }),
    endpoint('index.queue', {
      summary:
        "Where a transaction stands in a filtered list: its place, the set's size, the matching rows before and after it, its merchant's last category",
      example: '/api/index/transactions/queue?review=unreviewed&transactionId={transactionId}',
      handler: ({ req, services, query }) => services.search.queue(who(req), query),
    }),
    endpoint('index.queueNext', {
      summary:
        'The matching row after a transaction in a filtered list, alone (what Save and next opens)',
      example: '/api/index/transactions/queue/next?review=unreviewed&transactionId={transactionId}',
      handler: ({ req, services, query }) => services.search.queueNext(who(req), query),
    }),
    endpoint('index.exportCsv', {
      summary:
        "Every transaction of the index's filtered list, in its order, as CSV (a sub-account column when several); a part of an accounting file only while the posted rows are those its parts were planned from (else 409 matching_changed)",
      example: '/api/index/transactions/export.csv?status=declined',
      handler: async ({ req, res, services: { deps, search }, query }) => {
        const {
          tz,
          fromDay,
          toDay,
          format = 'card-console',
          part,
          postedRows,
          postedCents,
          ...filter
        } = query;
        // A part always comes with the posted set it was planned from (the query's check).
        const asked =
          part === undefined || postedRows === undefined || postedCents === undefined
            ? undefined
            : { part, planned: { count: postedRows, cents: postedCents } };
        const person = who(req);
        const times = createLocalTimes(tz);
        const stream = exportStreamContext(req, res, person, deps);
        await withExportSlot(deps, person, res, async () => {
          await deps.cardDirectory.ready();
          const file = await search.exportRows(
            person,
            filter,
            stream.clientGone,
            { times, cards: deps.cardDirectory },
            format,
            asked,
          );
          const named = file.subAccountName ?? 'all-sub-accounts';
          res.status(200).set({
            'Content-Type': 'text/csv; charset=utf-8',
            'Content-Disposition': exportContentDisposition({
              subAccountName:
                format === 'card-console'
                  ? named
                  : `${named}-${format}${part === undefined ? '' : `-part-${part}`}`,
              ...exportDays(filter, { fromDay, toDay, zone: times.zone, now: deps.clock.now() }),
            }),
            'Cache-Control': 'no-store',
          });
          if (req.method === 'HEAD') {
            res.end();
            return;
          }
          await streamCsv(res, file.rows, { ...stream, columns: file.columns });
        });
      },
    }),
    endpoint('index.receiptsZip', {
      summary:
        "The receipts of the index's filtered list, in its order, as one ZIP (each named by day, merchant and amount)",
      example: '/api/index/transactions/receipts.zip?from=1764547200000',
      handler: async ({ req, res, services: { deps, search }, query }) => {
        const { tz, fromDay, toDay, format: _format, ...filter } = query;
        const person = who(req);
        const times = createLocalTimes(tz);
        const stream = exportStreamContext(req, res, person, deps);
        await withExportSlot(deps, person, res, async () => {
          const files = await search.receiptFiles(person, filter, stream.clientGone, times);
          const days = exportDays(filter, {
            fromDay,
            toDay,
            zone: times.zone,
            now: deps.clock.now(),
          });
          res.status(200).set({
            'Content-Type': 'application/zip',
            'Content-Disposition': exportContentDisposition({
              subAccountName: 'receipts',
              ...days,
              extension: 'zip',
            }),
            'Cache-Control': 'no-store',
          });
          if (req.method === 'HEAD') {
            res.end();
            return;
          }
          await streamZip(res, files, stream);
        });
      },
    }),
    endpoint('index.card', {
      summary:
        "A card's money from the index: the sub accounts it spends from, its spend in the current window of its utilisation limit, its latest transactions",
      example: '/api/index/cards/{cardId}',
      handler: ({ req, services, params }) => services.search.card(who(req), params.id),
    }),
    endpoint('index.cards', {
      summary:
        'The cards that spend from a sub account (its transactions in the index say which), filtered and sorted as the cards list is',
      example: '/api/index/cards?subAccountId={subAccountId}&sort=name',
      handler: ({ req, services, query }) => services.search.cardsOf(who(req), query),
    }),
    endpoint('index.cardMoney', {
      summary:
        "The cards list's money: for each card asked, the sub accounts it spends from and its spend in the current window of its utilisation limit",
      example: '/api/index/card-money?cardId={cardId}',
      handler: ({ req, services, query }) => services.search.cardsMoney(who(req), query.cardId),
    }),
    endpoint('index.cardSubAccounts', {
      summary: 'Every card with a transaction in the index, and the sub accounts it spends from',
      example: '/api/index/card-sub-accounts',
      handler: ({ req, services }) => services.search.cardSubAccounts(who(req)),
    }),
    endpoint('index.attention', {
      summary:
        'What the month close still needs, every sub account: unreviewed, uncategorised and declined transactions of a period',
      example: '/api/index/attention?from=1764547200000',
      handler: ({ req, services, query }) => services.search.attention(who(req), query),
    }),
    endpoint('index.merchant', {
      summary:
        "The merchant a transaction's merchant text names, and every text of it the index holds (the most used first)",
      example: '/api/index/merchant?descriptor=SQ%20*PRAIRIE%20FUEL%20AUSTIN%20TX',
      handler: ({ req, services, query }) => services.search.merchant(who(req), query),
    }),
    endpoint('index.nameMerchant', {
      summary:
        "Name a merchant (admins): every group of card descriptors going by its name goes by the new one; another merchant's name makes the two one",
      attempted: 'merchants.change',
      example: '/api/index/merchants/name',
      handler: ({ req, services, body }) => services.search.nameMerchant(who(req), body),
    }),
    endpoint('index.unnameMerchant', {
      summary:
        "Take an admin's name off a merchant (admins): its groups of descriptors go by their own names again",
      attempted: 'merchants.change',
      example: '/api/index/merchants/name?merchant=Acme%20Fuel',
      handler: ({ req, services, query }) => services.search.unnameMerchant(who(req), query),
    }),
    endpoint('index.categories', {
      summary:
        'The merchant categories a filter can name: ISO 18245 codes and names, their groups, and everyday themes',
      example: '/api/index/categories',
      handler: () => categoryCatalog(),
    }),
  ],
);
