/**
 * Reads a service's Prometheus `/metrics` as a scraper would: the text exposition format parsed into
 * samples (name, labels, value), for the suites that check which counters moved and which label
 * values exist.
 */

/** One sample line: `name{label="value",…} 12`. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Parses the text exposition format (comments skipped). */
export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const m = LINE.exec(line);
    if (!m || line.startsWith('#')) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (m[2] ?? '').matchAll(LABEL)) labels[key!] = value!;
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

/** GETs `<serviceUrl>/metrics` (throws unless 200) and parses it. */
export async function scrape(serviceUrl: string): Promise<Sample[]> {
  const res = await fetch(`${serviceUrl}/metrics`);
  if (res.status !== 200) throw new Error(`${serviceUrl}/metrics answered ${res.status}`);
  return parseMetrics(await res.text());
}

/** The sum of the samples named `name` whose labels include `labels` (0 when there is none). */
export function total(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}
