import { RECEIPTS_PER_TRANSACTION, type Receipt } from '@card-console/shared/api/notes';
import type { Response } from 'express';
import { AppError, problemCode } from '../../core/app-error';
import { auditedChange, rethrowUnrecorded } from '../../platform/audit/audited-change';
import { holdsCardNumber, withCardNumbersMasked } from '../../platform/security/card-number-ids';
import type { Who } from '../../platform/sessions/who';
import type { NotesDeps } from './notes-service';
import { DuplicateReceiptError, NotesConflictError, TooManyReceiptsError } from './notes-store';
import {
  inspectReceipt,
  RECEIPT_MAX_PIXELS,
  type ReceiptRefusedError,
  safeFileName,
  sendReceipt,
} from './receipt-file';

/** The header a file's name comes in, percent-encoded UTF-8 (a header is Latin-1 otherwise). */
export const FILE_NAME_HEADER = 'x-file-name';

export function fileNameOf(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  try {
    return decodeURIComponent(header);
  } catch {
    throw new AppError(400, 'invalid_request', 'X-File-Name must be percent-encoded UTF-8.');
  }
}

/**
 * A receipt as its audit records describe it: type, size and digest. The digest is written as a
 * Subresource Integrity value (`sha256-` and its base64, what `openssl dgst -sha256 -binary FILE
 * | base64` prints), not in hex: about one hex digest in 350 holds a decimal run that reads as a
 * card number, which the trail refuses, so that receipt could be neither added nor removed.
 * Base64 holds thirteen digits in a row about once in a billion digests; that run is masked
 * rather than the record refused.
 */
const describedReceipt = (r: Pick<Receipt, 'mediaType' | 'byteSize' | 'sha256'>) =>
  `${r.mediaType}, ${r.byteSize} bytes, ${withCardNumbersMasked(
    `sha256-${Buffer.from(r.sha256, 'hex').toString('base64')}`,
  )}`;

/**
 * Receipts: uploaded as a request body whose type is decided from its bytes (never the name or
 * Content-Type), image metadata removed, stored in the notes' SQL store; served only as an
 * image or a download that cannot run script. Adding and removing one are changes of the notes:
 * refused once reviewed, audited in the change's own transaction (not made when the trail
 * cannot record it: 503 `audit_unavailable`).
 */
export function createReceiptsService(deps: NotesDeps) {
  const store = () => deps.stores.notes();
  const ctxOf = (who: Who) => ({
    requestId: who.requestId,
    trace: who.trace,
    role: who.actor.role,
  });
  const base = (who: Who, action: 'receipt.add' | 'receipt.remove', transactionId: string) =>
    ({
      actor: who.actor.email,
      role: who.actor.role,
      action,
      target: transactionId,
      requestId: who.requestId,
    }) as const;

  return {
    async list(_who: Who, transactionId: string): Promise<Receipt[]> {
      return (await store()).receipts(transactionId);
    },

    async add(
      who: Who,
      transactionId: string,
      body: Buffer,
      rawName: string | undefined,
    ): Promise<Receipt> {
      const given = fileNameOf(rawName);
      refuseCardNumber(given);
      const file = await inspectReceipt(body).catch(refusal);
      const fileName = safeFileName(given, file.mediaType);
      // Cleaning drops characters (`4111:1111:…` or `4111|1111|…` joins the groups): the name
      // kept is checked as well as the name given.
      refuseCardNumber(fileName);
      // Only a transaction the card service has (a 404 otherwise).
      const transaction = await deps.upstream.getTransaction(ctxOf(who), transactionId);
      const sub = transaction.subAccountId ? { subAccountId: transaction.subAccountId } : {};
      try {
        const s = await store();
        const { receipt } = await auditedChange(
          deps,
          (audited) =>
            s.addReceipt(
              transactionId,
              { fileName, mediaType: file.mediaType, content: file.bytes },
              RECEIPTS_PER_TRANSACTION,
              who.actor.email,
              new Date(deps.clock.now()),
              audited,
            ),
          ({ receipt }) => [
            {
              ...base(who, 'receipt.add', transactionId),
              ...sub,
              outcome: 'success',
              after: { receipt: receipt.fileName },
              detail: describedReceipt(receipt),
            },
          ],
        );
        return receipt;
      } catch (caught) {
        rethrowUnrecorded(caught);
        const error = translateReceiptError(caught);
        await deps.audit.append({
          ...base(who, 'receipt.add', transactionId),
          ...sub,
          outcome: 'failed',
          after: { receipt: fileName },
          detail: problemCode(error),
        });
        throw error;
      }
    },

    /** Writes the receipt as an image or a download; a 404 if that transaction has no such one. */
    async send(res: Response, transactionId: string, receiptId: string): Promise<void> {
      const file = await (await store()).receiptFile(transactionId, receiptId);
      if (!file) throw new AppError(404, 'not_found', 'There is no such receipt.');
      sendReceipt(res, file);
    },

    async remove(who: Who, transactionId: string, receiptId: string): Promise<undefined> {
      let removed: Receipt | undefined;
      try {
        const s = await store();
        removed = await auditedChange(
          deps,
          (audited) =>
            s.removeReceipt(
              transactionId,
              receiptId,
              who.actor.email,
              new Date(deps.clock.now()),
              audited,
            ),
          (receipt) => [
            // Only a receipt removed runs the hook.
            {
              ...base(who, 'receipt.remove', transactionId),
              outcome: 'success',
              before: { receipt: (receipt as Receipt).fileName },
              detail: describedReceipt(receipt as Receipt),
            },
          ],
        );
      } catch (caught) {
        rethrowUnrecorded(caught);
        const error = translateReceiptError(caught);
        await deps.audit.append({
          ...base(who, 'receipt.remove', transactionId),
          outcome: 'failed',
          detail: problemCode(error),
        });
        throw error;
      }
      if (!removed) throw new AppError(404, 'not_found', 'There is no such receipt.');
      return undefined;
    },
  };
}

export function refuseCardNumber(name: string | undefined): void {
  if (name !== undefined && holdsCardNumber(name)) {
    throw new AppError(
      400,
      'invalid_request',
      'A file name must not hold a card number. Rename the file and upload it again.',
    );
  }
}

/** Why the bytes are not a receipt, as the answer says it (inspectReceipt rejects only so). */
export function refusal(error: ReceiptRefusedError): never {
  switch (error.reason) {
    case 'type':
      throw new AppError(
        415,
        'unsupported_file',
        'Upload a JPEG, PNG, WebP or HEIC picture or a PDF. The file’s contents decide its type, whatever its name.',
      );
    case 'pixels':
      throw new AppError(
        422,
        'image_too_large',
        `The picture declares ${error.width} × ${error.height} pixels; a receipt can have at most ${RECEIPT_MAX_PIXELS / 1_000_000} million. Scale it down and upload it again.`,
      );
    case 'active':
      throw new AppError(
        422,
        'pdf_active_content',
        'The PDF can run script, act when opened or carry other files (or hides its contents where that cannot be checked), so it is not kept. Print it to a new PDF, or save it as a picture, and upload that.',
      );
    default:
      throw new AppError(
        400,
        'invalid_body',
        'The file is damaged and cannot be read as a receipt.',
      );
  }
}

export function translateReceiptError(error: unknown): unknown {
  if (error instanceof TooManyReceiptsError) {
    return new AppError(
      409,
      'too_many_receipts',
      `A transaction can have at most ${error.limit} receipts. Remove one before adding another.`,
    );
  }
  if (error instanceof DuplicateReceiptError) {
    return new AppError(
      409,
      'receipt_already_attached',
      `This transaction already has this file, as "${error.existing.fileName}" (added by ${error.existing.uploadedBy}), so it was not added again.`,
      { extensions: { receipt: error.existing } },
    );
  }
  if (error instanceof NotesConflictError) {
    return new AppError(
      409,
      'transaction_reviewed',
      'This transaction has been reviewed, so its receipts are locked. Reopen it to change them.',
      { extensions: { current: error.current } },
    );
  }
  return error;
}
