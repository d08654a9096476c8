import pg from 'pg';
import { StoreUnavailableError } from '../store-unavailable';

/**
 * SQLSTATE classes that mean "the database cannot serve us now", not "our statement is wrong":
 * connection exceptions (08), too many connections or out of space (53), shut down, restarting
 * or a timeout (57), system errors (58), and a lock we waited too long for (55P03).
 */
const unavailableStates = /^(08|53|57|58)|^55P03$/;

/**
 * The error to throw for a failed PostgreSQL call: StoreUnavailableError (503) when the server
 * is down, unreachable, restarting or too slow; the error itself when the statement was at
 * fault (a bug or a misconfigured privilege, which a retry would not mend).
 */
export function postgresFailure(error: unknown, operation: string): unknown {
  const sqlState = error instanceof pg.DatabaseError ? error.code : undefined;
  // No SQLSTATE: the socket (ECONNREFUSED, ECONNRESET, …) or node-postgres itself (connection
  // or query timeout, "Connection terminated"): the server did not answer.
  if (sqlState === undefined || unavailableStates.test(sqlState)) {
    return new StoreUnavailableError('postgres', operation, { cause: error });
  }
  return error;
}

const guarded = new WeakSet<pg.Pool>();

/**
 * Gives every connection of `pool` an 'error' listener for its whole life. pg-pool listens on
 * idle connections only: from the moment it hands one out (synchronously, on the release of
 * another, while the parser may still be reading the same chunk) until the caller's promise
 * resumes, and while a caller holds it between statements, the server ending the connection
 * ("terminating connection due to administrator command") would be an unhandled 'error' event,
 * which ends the process. The holder learns of it anyway: its next statement fails.
 */
export function keepClientErrorsHandled(pool: pg.Pool): pg.Pool {
  if (guarded.has(pool)) return pool;
  guarded.add(pool);
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}
