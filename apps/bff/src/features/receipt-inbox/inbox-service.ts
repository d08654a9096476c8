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
import { create as contentDisposition } from 'content-disposition';
import type { Response } from 'express';
import { AppError, problemCode } from '../../core/app-error';
import type { NewAuditRecord } from '../../platform/audit/audit-store';
import { auditedChange, rethrowUnrecorded } from '../../platform/audit/audited-change';
import type { BackgroundJobs } from '../../platform/jobs/background-jobs';
import type { Who } from '../../platform/sessions/who';
import type { FeatureDeps } from '../feature-deps';
import {
  fileNameOf,
  inspectReceipt,
  RECEIPT_TYPES,
  refusal,
  refuseCardNumber,
  safeFileName,
  translateReceiptError,
} from '../notes';
import { newForwardingSecret, receiptAddress } from './email/forwarding-secret';
import {
  InboxFullError,
  InboxItemAttachedError,
  type ReadResult,
  type ReceiptInboxStore,
} from './inbox-store';
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
  stores: { receiptInbox(): Promise<ReceiptInboxStore> };
  backgroundJobs: BackgroundJobs;
  /** Reads the files; started at the first file. */
  receiptReader: ReceiptReading;
  /** The forwarding addresses' domain (RECEIPT_MAIL_DOMAIN); undefined: no receiving mail. */
  receiptMailDomain?: string | undefined;
}

/** A waiting item is matched again this long after its last match, when its person looks. */
const REMATCH_AFTER_MS = 10 * 60_000;
/** Waiting items matched again per look at most. */
const REMATCH_PER_LOOK = 20;

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

  /** Reads an item still `reading` (or matches a `waiting` one again), then saves or attaches. */
  async function readAndMatch(id: string): Promise<void> {
    const s = await store();
    let read: InboxRead;
    const toRead = await s.toRead(id);
    let owner: string;
    if (toRead) {
      owner = toRead.owner;
      const outcome = await deps.receiptReader.read(toRead.content, toRead.mediaType);
      read = outcome.ok ? outcome.fields : { problem: outcome.problem };
    } else {
      const known = await s.readOf(id);
      if (!known) return;
      ({ owner, read } = known);
    }
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
      failureMemoryMs: 60_000,
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
     * skipped, and said so in the log). Rejects only when none could be kept for a reason that
     * may pass (the store or the trail down), so the sending server tries again.
     */
    async receiveMail(
      owner: string,
      files: { fileName: string | undefined; bytes: Buffer }[],
      meta: { messageId?: string },
    ): Promise<void> {
      const requestId = `mail:${meta.messageId ?? 'unknown'}`.slice(0, 200);
      for (const file of files) {
        const name = file.fileName && !holdsNumber(file.fileName) ? file.fileName : undefined;
        try {
          await receive({ actor: owner, requestId }, owner, file.bytes, name, 'email');
        } catch (error) {
          if (error instanceof AppError && error.status < 500) {
            deps.logger.info(
              { code: error.code, bytes: file.bytes.length },
              'a mailed attachment was not kept',
            );
            continue;
          }
          throw error;
        }
      }
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
      const image =
        file.mediaType.startsWith('image/') && Object.hasOwn(RECEIPT_TYPES, file.mediaType);
      res.status(200).set({
        'Content-Type': file.mediaType,
        'Content-Length': String(file.content.length),
        'Content-Disposition': contentDisposition(file.fileName, {
          type: image ? 'inline' : 'attachment',
        }),
        'Content-Security-Policy': "default-src 'none'; img-src 'self'; sandbox",
        'X-Content-Type-Options': 'nosniff',
        'Cross-Origin-Resource-Policy': 'same-origin',
        'Cache-Control': 'private, no-store',
      });
      res.end(file.content);
    },

    /** Attaches one of the person's items to a transaction they chose (a suggestion or another). */
    async attach(who: Who, id: string, body: InboxAttach): Promise<InboxItem> {
      // Only a transaction the card service has (a 404 otherwise), under the sub account named.
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

    /** Whose inbox a forwarding secret is (the mail listener's recipient check). */
    async ownerOf(secret: string): Promise<string | undefined> {
      return (await store()).ownerOfSecret(secret);
    },

    /** Reading asked for again (tests, and the mail listener after a restart). */
    readAgain(id: string) {
      return reads.request(id, {});
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
