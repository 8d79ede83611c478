export interface Sample {
  /** As written: a histogram's samples are `<name>_bucket`, `<name>_sum` and `<name>_count`. */
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface ParsedText {
  /** Each family's `# TYPE`: counter, gauge, histogram, summary or untyped. */
  types: Map<string, string>;
  samples: Sample[];
}

const sampleLine = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?$/;
const labelPair = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(?:,|$)/y;
const suffixes = ["_bucket", "_sum", "_count", "_total", "_created"];

/**
 * Prometheus's text exposition format (version 0.0.4), read as Prometheus reads it: every line is a comment
 * or a sample, every label value is quoted with `\\`, `\"` and `\n` escaped, and every sample belongs to
 * a family declared by `# TYPE`. Throws on the first line that is none of these. prom-client writes the
 * text; this checks it the way a scraper would, for the tests.
 */
export function parsePrometheusText(text: string): ParsedText {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const [i, line] of text.split("\n").entries()) {
    if (line.trim() === "") continue;
    const type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (type) types.set(type[1]!, type[2]!);
    if (line.startsWith("#")) continue;
    const match = sampleLine.exec(line);
    if (!match) throw new Error(`line ${i + 1} is not a sample: ${line}`);
    const [, name, labelText, value] = match;
    const family = [name!, ...suffixes.filter((s) => name!.endsWith(s)).map((s) => name!.slice(0, -s.length))].find((n) => types.has(n));
    if (family === undefined) throw new Error(`line ${i + 1}: ${name} has no # TYPE`);
    const numeric = /^[+-]?Inf$/.test(value!) ? (value!.startsWith("-") ? -Infinity : Infinity) : Number(value);
    if (Number.isNaN(numeric) && value !== "NaN") throw new Error(`line ${i + 1}: ${value} is not a number`);
    samples.push({ name: name!, labels: parseLabels(labelText ?? "", i + 1), value: numeric });
  }
  return { types, samples };
}

function parseLabels(text: string, line: number): Record<string, string> {
  const labels: Record<string, string> = {};
  labelPair.lastIndex = 0;
  while (labelPair.lastIndex < text.length) {
    const at = labelPair.lastIndex;
    const pair = labelPair.exec(text);
    if (!pair) throw new Error(`line ${line}: malformed labels at ${text.slice(at)}`);
    labels[pair[1]!] = pair[2]!.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
  }
  return labels;
}
