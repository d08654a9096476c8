import type { IncomingMessage } from 'node:http';
import type { Dataset } from '../data/dataset';
import type { CursorCodec } from '../http/cursor-codec';

export interface PageSizes {
  cards: number;
  transactions: number;
  subAccounts: number;
}

export interface RouteContext {
  req: IncomingMessage;
  query: URLSearchParams;
  /** The decoded `:id` path segment, when the route has one. */
  id: string;
  data: Dataset;
  cursors: CursorCodec;
  pageSize: PageSizes;
}

/** An answer's body as a value to serialize, or as JSON text already written (a hot path). */
export type RouteResult = { status: number; body: unknown } | { status: number; json: string };

export type RouteHandler = (ctx: RouteContext) => RouteResult | Promise<RouteResult>;
