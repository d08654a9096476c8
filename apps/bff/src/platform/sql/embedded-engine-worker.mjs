// @ts-check
// The embedded engine's thread (`sql-engine.ts`, `embeddedEngine` with `thread: 'worker'`):
// PGlite runs here, so its WebAssembly work (a sync's writes, a list's query) takes this
// thread, not the one that answers people and reads the card service's answers. Plain
// JavaScript: a worker thread loads its file with Node's own loader, under tsx and the tests'
// runner as in the bundle (where it is `dist/embedded-engine-worker.js`).
//
// Each message asks one thing and is answered with its `id`: `query` (in a transaction when it
// names one), `exec` (a migration file's several statements), `begin` (a transaction held open
// until its `end`, as `PGlite.transaction` holds it: the statements of every other caller wait),
// `analyze`, `close`. A failure is answered with the error's own fields (a SQLSTATE `code`,
// `constraint`…), which a thread's structured clone would drop from an Error.
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';

const port = parentPort;
if (!port) throw new Error('the embedded engine runs as a worker thread');

/** @type {{ dataDir?: string, from?: Blob, startParams: string[] }} */
const options = workerData;

const db = await PGlite.create({
  extensions: { pg_trgm },
  startParams: [...PGlite.defaultStartParams, ...options.startParams],
  ...(options.dataDir
    ? { dataDir: options.dataDir }
    : options.from
      ? { loadDataDir: options.from }
      : {}),
});

/**
 * The transactions held open: each its PGlite transaction and how it ends.
 * @type {Map<number, { tx: import('@electric-sql/pglite').Transaction, end: (commit: boolean) => void }>}
 */
const open = new Map();
let nextTransaction = 1;

/** Ends a held transaction by rolling it back (`PGlite.transaction` rolls back when its work throws). */
const rollback = Symbol('rollback');

/** @param {number} id */
function begin(id) {
  const transaction = nextTransaction++;
  let began = false;
  db.transaction(
    (tx) =>
      new Promise((resolve, reject) => {
        began = true;
        open.set(transaction, {
          tx,
          end: (commit) => (commit ? resolve(undefined) : reject(rollback)),
        });
        port?.postMessage({ id, ok: true, result: transaction });
      }),
  ).then(
    () => ended(transaction, undefined),
    (error) => {
      // It could not begin: the `begin` is answered with why.
      if (!began) port?.postMessage({ id, ok: false, error: fields(error) });
      else ended(transaction, error === rollback ? undefined : error);
    },
  );
}

/** The `end` messages waiting for their transaction's commit or rollback to finish. */
/** @type {Map<number, number>} */
const ending = new Map();

/**
 * Answers a transaction's `end` once PGlite has committed it or rolled it back.
 * @param {number} transaction
 * @param {unknown} error
 */
function ended(transaction, error) {
  open.delete(transaction);
  const id = ending.get(transaction);
  ending.delete(transaction);
  if (id === undefined) return;
  port?.postMessage(
    error === undefined ? { id, ok: true } : { id, ok: false, error: fields(error) },
  );
}

/**
 * An error as plain fields: its message, name and stack, and every field of its own (a
 * database error's SQLSTATE `code`, `detail`, `constraint`…).
 * @param {unknown} error
 */
function fields(error) {
  if (!(error instanceof Error)) return { message: String(error) };
  /** @type {Record<string, unknown>} */
  const out = { message: error.message, name: error.name, stack: error.stack };
  for (const [key, value] of Object.entries(error)) {
    if (value === undefined || typeof value === 'function') continue;
    if (typeof value === 'object' && value !== null) continue;
    out[key] = value;
  }
  return out;
}

/**
 * @param {{ id: number, op: string, text?: string, params?: unknown[], tx?: number,
 *   commit?: boolean, tables?: string[] }} message
 */
async function handle(message) {
  switch (message.op) {
    case 'query': {
      const on = message.tx === undefined ? db : open.get(message.tx)?.tx;
      if (!on) throw new Error('the transaction has ended');
      return (await on.query(message.text ?? '', message.params)).rows;
    }
    case 'exec': {
      const results = await db.exec(message.text ?? '');
      return results.at(-1)?.rows ?? [];
    }
    case 'analyze':
      await db.exec(`ANALYZE ${(message.tables ?? []).join(', ')}`);
      return undefined;
    case 'close':
      await db.close();
      return undefined;
    default:
      throw new Error(`not something the embedded engine's thread does: ${message.op}`);
  }
}

port.on('message', (message) => {
  if (message.op === 'begin') return begin(message.id);
  if (message.op === 'end') {
    const held = open.get(message.tx);
    if (!held) {
      port.postMessage({
        id: message.id,
        ok: false,
        error: { message: 'the transaction has ended' },
      });
      return;
    }
    ending.set(message.tx, message.id);
    held.end(message.commit === true);
    return;
  }
  handle(message).then(
    (result) => {
      try {
        port.postMessage({ id: message.id, ok: true, result });
      } catch (error) {
        // Rows the clone cannot carry: the statement fails, the thread serves on.
        port.postMessage({ id: message.id, ok: false, error: fields(error) });
      }
    },
    (error) => port.postMessage({ id: message.id, ok: false, error: fields(error) }),
  );
});

port.postMessage({ ready: true });
