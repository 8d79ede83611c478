import { parsePrometheusText, type Sample } from "./prometheusText.js";

export interface Scrape {
  samples: Sample[];
  /** The samples named `name` whose labels include `labels`. */
  find(name: string, labels?: Record<string, string>): Sample[];
  /** Their values added up; 0 when none. A histogram's observations are `<name>_count`. */
  total(name: string, labels?: Record<string, string>): number;
  /** Every label value of every `tidings_` sample, for checks of what labels may carry. */
  tidingsLabelValues(): string[];
}

/** GET /metrics, parsed as Prometheus would (prometheusText.ts): the text must be what Prometheus reads. */
export async function scrape(url: string, token?: string): Promise<Scrape> {
  const response = await fetch(url, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  if (response.status !== 200) throw new Error(`scrape answered ${response.status}: ${await response.text()}`);
  const { samples } = parsePrometheusText(await response.text());
  const find = (name: string, labels: Record<string, string> = {}) =>
    samples.filter((s) => s.name === name && Object.entries(labels).every(([key, value]) => s.labels[key] === value));
  return {
    samples,
    find,
    total: (name, labels) => find(name, labels).reduce((n, s) => n + s.value, 0),
    tidingsLabelValues: () => samples.filter((s) => s.name.startsWith("tidings_")).flatMap((s) => Object.values(s.labels)),
  };
}
