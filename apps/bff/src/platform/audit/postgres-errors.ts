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
