// The shipped Prometheus rules (ops/prometheus) as promtool reads them: valid, their unit tests
// passing, and every alert with a runbook section and a test that makes it fire.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { prometheusDir, promtool } from '../../test/engines/promtool';

const rulesFile = 'card-console.rules.yml';
const testFile = 'card-console.rules.test.yml';
const read = (name: string) => readFileSync(join(prometheusDir, name), 'utf8');

/** Each alert's name and annotations, read from the rules file's own layout. */
function alerts() {
  const found: { name: string; severity?: string; summary?: string; runbook?: string }[] = [];
  for (const line of read(rulesFile).split('\n')) {
    const alert = /^\s*- alert: (\S+)$/.exec(line);
    if (alert) found.push({ name: alert[1] ?? '' });
    const current = found.at(-1);
    const field = /^\s*(severity|summary|runbook_url): (.+)$/.exec(line);
    if (!current || !field) continue;
    if (field[1] === 'severity') current.severity = field[2];
    if (field[1] === 'summary') current.summary = field[2];
    if (field[1] === 'runbook_url') current.runbook = field[2];
  }
  return found;
}

/** GitHub's anchor for a markdown heading: lower case, spaces to dashes, punctuation dropped. */
const anchor = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\w\- ]/g, '')
    .replaceAll(' ', '-');

describe('the alert rules', () => {
  it('pass promtool check rules, with no warning', async () => {
    const result = await promtool(['check', 'rules', rulesFile]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`SUCCESS: ${alerts().length} rules found`);
    expect(result.stdout).not.toMatch(/warning/i);
  });

  it('pass their unit tests (promtool test rules)', async () => {
    const result = await promtool(['test', 'rules', testFile]);
    expect(`${result.stdout}${result.stderr}`).toContain('SUCCESS');
    expect(result.code).toBe(0);
  });

  it('cover the alerts the operators asked for, each with a severity and a summary', () => {
    const names = alerts().map((a) => a.name);
    for (const wanted of [
      'CardConsoleHigh5xxRatio',
      'CardConsoleUpstreamErrors',
      'CardConsoleUpstreamCircuitOpen',
      'CardConsoleAuditWriteFailures',
      'CardConsoleStoreErrors',
      'CardConsoleSlowResponses',
      'CardConsoleDependencyNotReady',
      'CardConsoleIndexSyncFailing',
      'CardConsoleIndexSyncLagging',
      'CardConsoleAlertDeliveryFailing',
      'CardConsoleAlertDeliveriesGivenUp',
      'CardConsoleAlertDeliveryBacklog',
    ]) {
      expect(names).toContain(wanted);
    }
    for (const alert of alerts()) {
      expect(alert.severity, alert.name).toMatch(/^(critical|warning)$/);
      expect(alert.summary, alert.name).toBeTruthy();
    }
  });

  it('link each alert to its own runbook section, and every section to an alert', () => {
    const runbooks = read('runbooks.md');
    const sections = [...runbooks.matchAll(/^## (.+)$/gm)].map((m) => m[1] ?? '');
    for (const alert of alerts()) {
      expect(alert.runbook, alert.name).toBe(
        `ops/prometheus/runbooks.md#${alert.name.toLowerCase()}`,
      );
      expect(sections.map(anchor), alert.name).toContain(alert.name.toLowerCase());
      // A runbook says what it means, what to look at first, and what to do.
      const body = runbooks.split(`## ${alert.name}\n`)[1]?.split(/^## /m)[0] ?? '';
      for (const part of ['**What it means.**', '**First checks.**', '**What to do.**']) {
        expect(body, `${alert.name}: ${part}`).toContain(part);
      }
    }
    expect(sections.sort()).toEqual(
      alerts()
        .map((a) => a.name)
        .sort(),
    );
  });

  it('have a unit test in which each alert fires', () => {
    const tests = read(testFile);
    for (const { name } of alerts()) {
      // An expected firing: the alert's name followed by a non-empty exp_alerts list.
      const firing = new RegExp(`alertname: ${name}\\n\\s+exp_alerts:\\n\\s+- exp_labels:`);
      expect(tests, name).toMatch(firing);
    }
  });
});
