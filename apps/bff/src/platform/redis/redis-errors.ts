import { StoreUnavailableError } from '../store-unavailable';

/**
 * Runs one Redis operation of a store; any failure (disconnected, timed out, refused) becomes
 * `StoreUnavailableError`, which the error handler answers with 503 `store_unavailable`.
 */
export async function redisCall<T>(operation: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw new StoreUnavailableError('redis', operation, { cause: error });
  }
}
