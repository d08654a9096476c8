/** Requests received, by route template ("GET /card/:id"); unmatched paths as "GET (unmatched)". */
export class RequestStats {
  private counts = new Map<string, number>();

  record(route: string): void {
    this.counts.set(route, (this.counts.get(route) ?? 0) + 1);
  }

  count(route: string): number {
    return this.counts.get(route) ?? 0;
  }

  total(): number {
    let sum = 0;
    for (const n of this.counts.values()) sum += n;
    return sum;
  }

  reset(): void {
    this.counts = new Map();
  }

  snapshot(): Record<string, number> {
    return Object.fromEntries(this.counts);
  }
}
