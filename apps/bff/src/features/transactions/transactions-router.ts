// Placeholder until the feature lands: the real router replaces this file.
import { Router } from 'express';
import type { FeatureDeps } from '../../http/deps';

export function createTransactionsRouter(_deps: FeatureDeps): Router {
  return Router();
}
