/**
 * The page's first script: the router, started. index.html runs it ahead of the app's own
 * entry (main.tsx, which renders), as an entry of its own (vite.config.ts), so the first
 * screen's reads leave once the router's code has run instead of once React's has loaded as
 * well. What is read, and with which filters, is the routes' own `beforeLoad`s and loaders.
 */
import { createQueryClient } from './lib/query-client';
import { startRouter } from './router';

export const queryClient = createQueryClient();
export const router = startRouter(queryClient);
