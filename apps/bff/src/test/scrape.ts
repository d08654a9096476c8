// Tests' reading of a Prometheus text exposition: one sample by name and exact labels.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const match = LINE.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(LABEL)) labels[key ?? ''] = value ?? '';
    samples.push({ name: match[1] ?? '', labels, value: Number(match[3]) });
  }
  return samples;
}

/** The value of the sample with exactly these labels (0 when there is none, as Prometheus reads a missing counter). */
export function sampleValue(
  samples: Sample[],
  name: string,
  labels: Record<string, string> = {},
): number {
  const wanted = Object.entries(labels);
  const found = samples.find(
    (s) =>
      s.name === name &&
      Object.keys(s.labels).length === wanted.length &&
      wanted.every(([k, v]) => s.labels[k] === v),
  );
  return found?.value ?? 0;
}
