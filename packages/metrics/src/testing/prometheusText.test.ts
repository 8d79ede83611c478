import { describe, expect, it } from "vitest";
import { parsePrometheusText } from "./prometheusText.js";

describe("parsePrometheusText", () => {
  it("reads counters and histograms with their labels, escapes undone", () => {
    const text = [
      "# HELP requests_total Requests.",
      "# TYPE requests_total counter",
      'requests_total{route="/emails/:id",method="GET"} 3',
      "# TYPE latency_seconds histogram",
      'latency_seconds_bucket{le="0.1",route="a\\"b\\\\c\\nd"} 1',
      'latency_seconds_bucket{le="+Inf",route="a\\"b\\\\c\\nd"} 2',
      'latency_seconds_sum{route="a\\"b\\\\c\\nd"} 0.25',
      'latency_seconds_count{route="a\\"b\\\\c\\nd"} 2',
      "",
    ].join("\n");
    const { samples, types } = parsePrometheusText(text);
    expect(types.get("latency_seconds")).toBe("histogram");
    expect(samples[0]).toEqual({ name: "requests_total", labels: { route: "/emails/:id", method: "GET" }, value: 3 });
    expect(samples[2]).toEqual({ name: "latency_seconds_bucket", labels: { le: "+Inf", route: 'a"b\\c\nd' }, value: 2 });
    expect(samples.at(-1)).toEqual({ name: "latency_seconds_count", labels: { route: 'a"b\\c\nd' }, value: 2 });
  });

  it("refuses a sample without a # TYPE, an unquoted label, or a value that is no number", () => {
    expect(() => parsePrometheusText("orphan 1")).toThrow("orphan has no # TYPE");
    expect(() => parsePrometheusText("# TYPE g gauge\ng{a=b} 1")).toThrow("malformed labels");
    expect(() => parsePrometheusText("# TYPE g gauge\ng one")).toThrow("is not a number");
  });
});
