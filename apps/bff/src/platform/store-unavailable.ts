/**
 * A shared store (PostgreSQL) could not be reached or did not answer in time. The
 * error handler answers 503 `store_unavailable` with Retry-After, and `/readyz` fails until
 * the engine is back; the client reconnects by itself, so no restart is needed.
 */
export class StoreUnavailableError extends Error {
  readonly engine: 'postgres';

  constructor(engine: 'postgres', operation: string, options: { cause?: unknown } = {}) {
    super(`${engine} unavailable during ${operation}`, options);
    this.name = 'StoreUnavailableError';
    this.engine = engine;
  }
}
