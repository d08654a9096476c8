import { mulberry32, type Rng } from '../data/prng';

/** Random faults, each a probability in [0, 1] (latency in ms, added to every request). */
export interface FaultOptions {
  latencyMs?: number;
  errorRate?: number;
  malformedJsonRate?: number;
  dropConnectionRate?: number;
}

interface StepScope {
  /** Apply only to a request with this method, e.g. 'GET'. */
  method?: string;
  /** Apply only to this route template, e.g. 'PATCH /card/:id'. */
  route?: string;
}

/** One scripted fault, applied to the next matching request, in order. */
export type FaultStep = StepScope &
  (
    | { kind: 'status'; status: number; retryAfter?: string | number; body?: unknown }
    | { kind: 'malformed'; status?: number }
    | { kind: 'drop' }
    | { kind: 'delay'; ms: number }
    | { kind: 'html'; status?: number }
    | { kind: 'redirect'; status?: number; location: string }
    | { kind: 'body'; status?: number; body: unknown; headers?: Record<string, string> }
    /**
     * An error body (400 by default; 422 too) whose message quotes the service's own API key,
     * as a careless service might: `{key}` in `message` stands for it.
     */
    | { kind: 'echo-key'; status?: 400 | 422; message?: string }
  );

export type RandomFault = 'error' | 'malformed' | 'drop' | undefined;

export class FaultController {
  private options: FaultOptions = {};
  private queue: FaultStep[] = [];
  private readonly rng: Rng;

  constructor(seed: number, options: FaultOptions = {}) {
    this.rng = mulberry32(seed ^ 0xfa_017);
    this.set(options);
  }

  /** Merges into the current options: set({ errorRate: 0 }) changes only that one. */
  set(options: FaultOptions): void {
    this.options = { ...this.options, ...options };
  }

  enqueue(...steps: FaultStep[]): void {
    this.queue.push(...steps);
  }

  clear(): void {
    this.options = {};
    this.queue = [];
  }

  get pending(): number {
    return this.queue.length;
  }

  /** Takes the first queued step that applies to this request. */
  takeStep(method: string, route: string): FaultStep | undefined {
    const at = this.queue.findIndex(
      (s) =>
        (s.method === undefined || s.method.toUpperCase() === method) &&
        (s.route === undefined || s.route === route),
    );
    return at < 0 ? undefined : this.queue.splice(at, 1)[0];
  }

  latencyMs(): number {
    return Math.max(0, this.options.latencyMs ?? 0);
  }

  rollRandom(): RandomFault {
    const { dropConnectionRate = 0, errorRate = 0, malformedJsonRate = 0 } = this.options;
    if (dropConnectionRate <= 0 && errorRate <= 0 && malformedJsonRate <= 0) return undefined;
    const r = this.rng();
    if (r < dropConnectionRate) return 'drop';
    if (r < dropConnectionRate + errorRate) return 'error';
    if (r < dropConnectionRate + errorRate + malformedJsonRate) return 'malformed';
    return undefined;
  }
}
