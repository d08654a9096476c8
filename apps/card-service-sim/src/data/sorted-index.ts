/**
 * Helpers over an index: an Int32Array of row numbers in ascending order. Rows are sorted
 * by (date, row), so both the row number and the date are monotonic along an index.
 */

/** First position whose row number is >= row. */
export function lowerBoundRow(index: Int32Array, row: number): number {
  let lo = 0;
  let hi = index.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((index[mid] ?? 0) < row) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First position whose date is >= ms (strict=false) or > ms (strict=true). */
export function lowerBoundDate(
  index: Int32Array,
  dates: Float64Array,
  ms: number,
  strict: boolean,
): number {
  let lo = 0;
  let hi = index.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const d = dates[index[mid] ?? 0] ?? 0;
    if (d < ms || (strict && d === ms)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Builds one index per group in a single counting pass: group(row) < 0 skips the row. */
export function buildGroupIndexes(
  rows: number,
  groups: number,
  group: (row: number) => number,
): Int32Array[] {
  const counts = new Int32Array(groups);
  for (let row = 0; row < rows; row++) {
    const g = group(row);
    if (g >= 0) counts[g] = (counts[g] ?? 0) + 1;
  }
  const indexes = Array.from(counts, (c) => new Int32Array(c));
  const fill = new Int32Array(groups);
  for (let row = 0; row < rows; row++) {
    const g = group(row);
    if (g < 0) continue;
    const target = indexes[g];
    if (!target) continue;
    const at = fill[g] ?? 0;
    target[at] = row;
    fill[g] = at + 1;
  }
  return indexes;
}
