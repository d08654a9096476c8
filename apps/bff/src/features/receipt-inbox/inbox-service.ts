import { RECEIPTS_PER_TRANSACTION } from '@card-console/shared/api/notes';
import type {
  InboxAddress,
  InboxAttach,
  InboxItem,
  InboxList,
  InboxRead,
  InboxSuggestion,
} from '@card-console/shared/api/receipt-inbox';
import { formatCents } from '@card-console/shared/money';
import type { Response } from 'express';
import { AppError, problemCode } from '../../core/app-error';
import type { NewAuditRecord } from '../../platform/audit/audit-store';
import { auditedChange, rethrowUnrecorded } from '../../platform/audit/audited-change';
import type { BackgroundJobs } from '../../platform/jobs/background-jobs';
import { failureBackoffMs } from '../../platform/jobs/failure-backoff';
import { withCardNumbersMasked } from '../../platform/security/card-number-ids';
import type { Who } from '../../platform/sessions/who';
import type { FeatureDeps } from '../feature-deps';
import {
  fileNameOf,
  inspectReceipt,
  refusal,
  refuseCardNumber,
  safeFileName,
  sendReceipt,
  translateReceiptError,
} from '../notes';
import type { PersonSessionTable } from '../people';
import type { TransactionIndexStore } from '../transaction-index';
import { newForwardingSecret, receiptAddress } from './email/forwarding-secret';
import {
  InboxDuplicateError,
  InboxFullError,
  InboxItemAttachedError,
  type ReadResult,
  type ReceiptInboxStore,
} from './inbox-store';
import { MAX_TOTAL_CENTS } from './reading/receipt-fields';
import { candidateWindow, rankCandidates } from './receipt-matching';

/** What reads a receipt's file: reading/receipt-reader.ts, a separate process with budgets. */
export interface ReceiptReading {
  read(
    bytes: Buffer,
    mediaType: string,
  ): Promise<
    | { ok: true; fields: Pick<InboxRead, 'totalCents' | 'date' | 'merchant'> }
    | { ok: false; problem: NonNullable<InboxRead['problem']> }
  >;
}

export interface ReceiptInboxDeps
  extends Pick<FeatureDeps, 'upstream' | 'audit' | 'clock' | 'logger'> {
  stores: {
    receiptInbox(): Promise<ReceiptInboxStore>;
    /** Which sub account holds a transaction picked by hand. */
    index(): Promise<Pick<TransactionIndexStore, 'existing'>>;
    /** Whether a forwarding address's person may still use it (not disabled, not removed). */
    personSessions(): Promise<Pick<PersonSessionTable, 'standing'>>;
  };
  backgroundJobs: BackgroundJobs;
  /** Reads the files; started at the first file. */
  receiptReader: ReceiptReading;
  /** The forwarding addresses' domain (RECEIPT_MAIL_DOMAIN); undefined: no receiving mail. */
  receiptMailDomain?: string | undefined;
}

/** A waiting item is matched again this long after its last match, when its person looks. */
const REMATCH_AFTER_MS = 10 * 60_000;
/** Waiting items matched again per look at most (and stale reading ones asked again). */
const REMATCH_PER_LOOK = 20;
/** A `reading` item whose job is not asked for this long after it arrived is asked again. */
const STALE_READING_MS = 60_000;

/** What the reader found, without a total no receipt has (reading/receipt-fields.ts). */
function sane(fields: Pick<InboxRead, 'totalCents' | 'date' | 'merchant'>): InboxRead {
  const { totalCents, ...rest } = fields;
  return totalCents !== undefined &&
    Number.isSafeInteger(totalCents) &&
    totalCents > 0 &&
    totalCents <= MAX_TOTAL_CENTS
    ? { ...rest, totalCents }
    : rest;
}

const described = (item: Pick<InboxItem, 'mediaType' | 'byteSize'>) =>
  `${item.mediaType}, ${item.byteSize} bytes`;
const transactionText = (s: Pick<InboxSuggestion, 'description' | 'at' | 'amountCents'>) =>
  `${s.description}, ${s.at.slice(0, 10)}, ${formatCents(s.amountCents)}`;

/**
 * The receipt inbox: files in (an upload, or mail to the person's forwarding address), read in
 * the background by one replica (the `receipt-inbox` job of the item), matched to the index,
 * then attached when certain, suggested, or left waiting; the person confirms, picks another or
 * discards. Every change is audited in its own transaction.
 */
export function createReceiptInboxService(deps: ReceiptInboxDeps) {
  const store = () => deps.stores.receiptInbox();
  const now = () => new Date(deps.clock.now());

  /**
   * Reads an item still `reading` (or matches a `waiting` one again), then saves or attaches.
   * Whatever fails after the reading (the index's query, a save: the database briefly down) is
   * not left `reading`: what was read is saved with no suggestions, `waiting`, which is matched
   * again when its person looks (and a file the reader itself failed on is `unreadable`). Only
   * when even that save fails does the job fail; the person's next look asks for it again
   * (`list`, `staleReading`).
   */
  async function readAndMatch(id: string): Promise<void> {
    const s = await store();
    let read: InboxRead;
    const toRead = await s.toRead(id);
    let owner: string;
    if (toRead) {
      owner = toRead.owner;
      try {
        const outcome = await deps.receiptReader.read(toRead.content, toRead.mediaType);
        read = outcome.ok ? sane(outcome.fields) : { problem: outcome.problem };
      } catch (error) {
        deps.logger.warn({ err: error, inboxItemId: id }, 'a receipt could not be read');
        read = { problem: 'unreadable' };
      }
    } else {
      const known = await s.readOf(id);
      if (!known) return;
      ({ owner, read } = known);
    }
    try {
      await match(s, id, owner, read);
    } catch (error) {
      if (!toRead) throw error;
      deps.logger.warn(
        { err: error, inboxItemId: id },
        'a read receipt could not be matched; it waits, to be matched again',
      );
      await s.saveRead(id, { read, suggestions: [] }, now());
    }
  }

  async function match(
    s: ReceiptInboxStore,
    id: string,
    owner: string,
    read: InboxRead,
  ): Promise<void> {
    const window = candidateWindow(read, deps.clock.now());
    const { automatic, suggestions } = window
      ? rankCandidates(read, await s.candidates(window))
      : { suggestions: [] };
    if (automatic) {
      // What was read is saved with the attach, in its transaction: the item goes from reading
      // to attached, never listed as suggested on its way (a list then would stop asking again
      // and keep offering to confirm it). An attach refused (reviewed meanwhile, the trail
      // down) leaves it suggested.
      const result = { read, suggestions: [automatic] };
      try {
        await attach(
          { actor: owner, requestId: `inbox:${id}` },
          owner,
          id,
          automatic,
          true,
          result,
        );
        return;
      } catch (error) {
        deps.logger.warn(
          { err: error, inboxItemId: id },
          'a receipt matched for certain could not be attached; it stays suggested',
        );
        await s.saveRead(id, result, now());
        return;
      }
    }
    await s.saveRead(id, { read, suggestions }, now());
  }

  const reads = deps.backgroundJobs.kind<Record<string, never>, Record<string, never>>(
    'receipt-inbox',
    {
      run: (id) => readAndMatch(id),
      progress: () => ({}),
      // A job that failed (its item still `reading`: even saving what was read failed) is asked
      // for again by its person's looks, on this schedule (5 s, 20 s, 80 s ... 15 min).
      failureMemoryMs: failureBackoffMs,
      // The reader is one process: one file at a time per replica.
      atOnce: 1,
    },
  );

  async function attach(
    by: { actor: string; role?: Who['actor']['role']; requestId: string },
    owner: string | undefined,
    id: string,
    target: Pick<
      InboxSuggestion,
      'subAccountId' | 'transactionId' | 'description' | 'at' | 'amountCents'
    >,
    automatic: boolean,
    /** What was read, saved with the attach (a match for certain). */
    read?: ReadResult,
  ): Promise<InboxItem> {
    const s = await store();
    const base = {
      actor: by.actor,
      ...(by.role ? { role: by.role } : {}),
      action: 'inbox.attach',
      target: target.transactionId,
      subAccountId: target.subAccountId,
      requestId: by.requestId,
    } as const;
    try {
      const done = await auditedChange(
        deps,
        (audited) =>
          s.attach(
            owner,
            id,
            { ...target, automatic, ...(read ? { read } : {}) },
            RECEIPTS_PER_TRANSACTION,
            by.actor,
            now(),
            audited,
          ),
        (result): NewAuditRecord[] =>
          result
            ? [
                {
                  ...base,
                  outcome: 'success',
                  after: { receipt: result.receipt.fileName },
                  detail: `${automatic ? 'matched for certain' : 'confirmed'}: ${
                    target.description
                      ? transactionText(target as InboxSuggestion)
                      : target.transactionId
                  }; ${described(result.item)}`,
                },
              ]
            : [],
      );
      if (!done) throw new AppError(404, 'not_found', 'There is no such receipt in your inbox.');
      return done.item;
    } catch (caught) {
      rethrowUnrecorded(caught);
      const error = problemOf(caught);
      if (!(error instanceof AppError && error.status === 404)) {
        await deps.audit.append({ ...base, outcome: 'failed', detail: problemCode(error) });
      }
      throw error;
    }
  }

  /** A file into `owner`'s inbox, audited, and its reading asked for. */
  async function receive(
    by: { actor: string; role?: Who['actor']['role']; requestId: string },
    owner: string,
    body: Buffer,
    given: string | undefined,
    via: 'upload' | 'email',
    /** A mailed file's message (its Message-ID): kept once however often it is sent. */
    messageId?: string,
  ): Promise<InboxItem> {
    const file = await inspectReceipt(body).catch(refusal);
    const fileName = safeFileName(given, file.mediaType);
    refuseCardNumber(fileName);
    const s = await store();
    const base = {
      actor: by.actor,
      ...(by.role ? { role: by.role } : {}),
      action: 'inbox.receive',
      requestId: by.requestId,
    } as const;
    try {
      const item = await auditedChange(
        deps,
        (audited) =>
          s.receive(
            owner,
            { fileName, mediaType: file.mediaType, content: file.bytes },
            via,
            now(),
            audited,
            messageId,
          ),
        (item: InboxItem) => [
          {
            ...base,
            target: item.id,
            outcome: 'success',
            after: { receipt: item.fileName },
            detail: `${via}; ${described(item)}`,
          },
        ],
      );
      reads.request(item.id, {});
      return item;
    } catch (caught) {
      if (caught instanceof InboxDuplicateError) {
        // Kept when this message was sent before: nothing new, nothing to record.
        deps.logger.info(
          { inboxItemId: caught.item.id, requestId: by.requestId },
          'a mailed attachment was kept before (the message sent again); not kept twice',
        );
        return caught.item;
      }
      rethrowUnrecorded(caught);
      const error = problemOf(caught);
      await deps.audit.append({
        ...base,
        outcome: 'failed',
        after: { receipt: fileName },
        detail: problemCode(error),
      });
      throw error;
    }
  }

  const whoBy = (who: Who) => ({
    actor: who.actor.email,
    role: who.actor.role,
    requestId: who.requestId,
  });

  return {
    async list(who: Who): Promise<InboxList> {
      const s = await store();
      // The person's waiting ones are matched again now and then (their transaction may have
      // posted since), before the answer: it says what came of it. Nothing is read again, so
      // it is a few statements each; one that fails stays waiting.
      // Those still `reading` whose job failed (the database was down even for saving what was
      // read) or was never asked for (the process ended between the save and the ask) are
      // asked for again: nothing stays `reading` for good while its person looks, and the SPA
      // asks again every 2 s while something is. A job that keeps failing is joined, not run
      // again, until its failure memory ends (failureBackoffMs).
      for (const id of await s.staleReading(
        who.actor.email,
        new Date(deps.clock.now() - STALE_READING_MS),
        REMATCH_PER_LOOK,
      )) {
        reads.request(id, {});
      }
      const due = await s.claimWaiting(
        who.actor.email,
        new Date(deps.clock.now() - REMATCH_AFTER_MS),
        now(),
        REMATCH_PER_LOOK,
      );
      for (const id of due) {
        await readAndMatch(id).catch((error: unknown) => {
          deps.logger.warn(
            { err: error, inboxItemId: id },
            'a waiting receipt was not matched again',
          );
        });
      }
      return s.list(who.actor.email, now());
    },

    upload(who: Who, body: Buffer, rawName: string | undefined): Promise<InboxItem> {
      const given = fileNameOf(rawName);
      refuseCardNumber(given);
      return receive(whoBy(who), who.actor.email, body, given, 'upload');
    },

    /**
     * Mail's attachments into `owner`'s inbox: each that is a receipt by its bytes (others are
     * skipped, and said so in the log). One that could not be kept for a reason that may pass
     * (the store or the trail down) rejects after the others were tried, so the sending server
     * tries the whole message again (451): its attachments kept before are known by the
     * message's Message-ID and their bytes and not kept twice. A message without a Message-ID
     * cannot be known again: once anything of it was kept it is accepted, the rest logged.
     */
    async receiveMail(
      owner: string,
      files: { fileName: string | undefined; bytes: Buffer }[],
      meta: { messageId?: string },
    ): Promise<void> {
      const messageId = meta.messageId?.trim() || undefined;
      // The sender's Message-ID names the delivery in the trail, with any digit run that reads
      // as a card number masked: the trail refuses one, and a refusal that never passes would be
      // answered "try later" until the receipt bounced. The store keeps the id as sent.
      const requestId = withCardNumbersMasked(`mail:${messageId ?? 'unknown'}`).slice(0, 200);
      let kept = 0;
      let failure: unknown;
      for (const file of files) {
        const name = file.fileName && !holdsNumber(file.fileName) ? file.fileName : undefined;
        try {
          await receive({ actor: owner, requestId }, owner, file.bytes, name, 'email', messageId);
          kept++;
        } catch (error) {
          if (error instanceof AppError && error.status < 500) {
            deps.logger.info(
              { code: error.code, bytes: file.bytes.length },
              'a mailed attachment was not kept',
            );
            continue;
          }
          failure ??= error;
          deps.logger.warn(
            { err: error, bytes: file.bytes.length, requestId },
            'a mailed attachment could not be kept just now',
          );
        }
      }
      if (failure === undefined) return;
      if (messageId === undefined && kept > 0) {
        deps.logger.error(
          { owner, kept, requestId },
          'a mail without a Message-ID was accepted with some attachments not kept: sent again it would put the kept ones in twice',
        );
        return;
      }
      throw failure;
    },

    async item(who: Who, id: string): Promise<InboxItem> {
      const item = await (await store()).item(who.actor.email, id);
      if (!item) throw new AppError(404, 'not_found', 'There is no such receipt in your inbox.');
      return item;
    },

    /** Writes the item's file as a picture or a download, like a transaction's receipt. */
    async send(who: Who, res: Response, id: string): Promise<void> {
      const file = await (await store()).file(who.actor.email, id);
      if (!file) throw new AppError(404, 'not_found', 'There is no such receipt in your inbox.');
      sendReceipt(res, file);
    },

    /** Attaches one of the person's items to a transaction they chose (a suggestion or another). */
    async attach(who: Who, id: string, body: InboxAttach): Promise<InboxItem> {
      // The sub account is the index's, never the browser's word: the card service's
      // transaction does not name its sub account (its contract has none), and the attach's
      // audit record and the item name the one given. A transaction the index does not hold
      // under it (another sub account's, one not synced yet, none at all) is refused.
      const held = await (await deps.stores.index()).existing([
        { subAccountId: body.subAccountId, id: body.transactionId },
      ]);
      if (!held.has(body.transactionId)) {
        throw new AppError(
          404,
          'not_found',
          'There is no such transaction in that sub account. Search the transactions again and pick one from the list.',
        );
      }
      // Only a transaction the card service has (a 404 otherwise), as it is now.
      const transaction = await deps.upstream.getTransaction(
        { requestId: who.requestId, trace: who.trace, role: who.actor.role },
        body.transactionId,
      );
      if (
        transaction.subAccountId !== undefined &&
        transaction.subAccountId !== body.subAccountId
      ) {
        throw new AppError(404, 'not_found', 'There is no such transaction in that sub account.');
      }
      return attach(
        whoBy(who),
        who.actor.email,
        id,
        {
          subAccountId: body.subAccountId,
          transactionId: body.transactionId,
          description: transaction.description,
          at: transaction.date,
          amountCents: transaction.amountCents,
        },
        false,
      );
    },

    async discard(who: Who, id: string): Promise<undefined> {
      const s = await store();
      const base = {
        actor: who.actor.email,
        role: who.actor.role,
        action: 'inbox.discard',
        target: id,
        requestId: who.requestId,
      } as const;
      try {
        const removed = await auditedChange(
          deps,
          (audited) => s.discard(who.actor.email, id, audited),
          (item: InboxItem | undefined) =>
            item
              ? [
                  {
                    ...base,
                    outcome: 'success',
                    before: { receipt: item.fileName },
                    detail: described(item),
                  },
                ]
              : [],
        );
        if (!removed)
          throw new AppError(404, 'not_found', 'There is no such receipt in your inbox.');
        return undefined;
      } catch (caught) {
        rethrowUnrecorded(caught);
        const error = problemOf(caught);
        if (!(error instanceof AppError && error.status === 404)) {
          await deps.audit.append({ ...base, outcome: 'failed', detail: problemCode(error) });
        }
        throw error;
      }
    },

    async address(who: Who): Promise<InboxAddress> {
      const domain = deps.receiptMailDomain;
      if (!domain) return { enabled: false };
      const secret = await (await store()).forwardingSecret(
        who.actor.email,
        newForwardingSecret,
        now(),
      );
      return { enabled: true, address: receiptAddress(secret, domain) };
    },

    async rotateAddress(who: Who): Promise<InboxAddress> {
      const domain = deps.receiptMailDomain;
      if (!domain) {
        throw new AppError(
          409,
          'mail_not_set_up',
          'Receiving receipts by email is not set up on this Card Console (RECEIPT_MAIL_DOMAIN).',
        );
      }
      const s = await store();
      const secret = await auditedChange(
        deps,
        (audited) =>
          s.rotateForwardingSecret(who.actor.email, newForwardingSecret(), now(), audited),
        () => [
          {
            actor: who.actor.email,
            role: who.actor.role,
            action: 'inbox.rotateAddress',
            target: who.actor.email,
            requestId: who.requestId,
            outcome: 'success',
            detail: 'a new forwarding address; mail to the old one is refused',
          },
        ],
      );
      return { enabled: true, address: receiptAddress(secret, domain) };
    },

    /**
     * Whose inbox a forwarding secret is (the mail listener's recipient check): none when the
     * secret is unknown or replaced, or its person is disabled or removed (People): a departed
     * person's address takes no more mail, as an unknown one.
     */
    async ownerOf(secret: string): Promise<string | undefined> {
      const owner = await (await store()).ownerOfSecret(secret);
      if (owner === undefined) return undefined;
      const standing = await (await deps.stores.personSessions()).standing(owner, undefined);
      return standing && !standing.disabled ? owner : undefined;
    },
  };
}

export type ReceiptInboxService = ReturnType<typeof createReceiptInboxService>;

const holdsNumber = (name: string) => {
  try {
    refuseCardNumber(name);
    return false;
  } catch {
    return true;
  }
};

/** The store's refusals as the API's problems. */
function problemOf(error: unknown): unknown {
  if (error instanceof InboxFullError) {
    return new AppError(
      409,
      'inbox_full',
      `Your receipt inbox holds ${error.limit} receipts waiting. Attach or discard some before adding more.`,
    );
  }
  if (error instanceof InboxItemAttachedError) {
    return new AppError(
      409,
      'already_attached',
      'This receipt has been attached to a transaction already. Reload your inbox.',
    );
  }
  return translateReceiptError(error);
}
