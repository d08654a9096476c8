import { afterEach, beforeEach } from 'vitest';

/**
 * Runs each test of the file in this IANA time zone (the browser's, to the app), and puts
 * back the one before afterwards. Call it at the top of a test file.
 */
export function inTimeZone(zone: string): void {
  let previous: string | undefined;
  beforeEach(() => {
    previous = process.env.TZ;
    process.env.TZ = zone;
  });
  afterEach(() => {
    process.env.TZ = previous;
  });
}
