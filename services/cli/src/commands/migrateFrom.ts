import { systemClock } from "@tidings/core";
import { teamIdForName } from "@tidings/api";
import { loadState, operationMetadata } from "@tidings/commands";
import { migratedKinds, teamDecider, teamStream, type MigratedKind, type MigrationMapping } from "@tidings/domain";
import type { CliOutput } from "../cliOutput.js";
import type { Runtime } from "../runtime.js";
import { UsageError } from "../usageError.js";
import { copyResources, CopyRefused, type CopyOutcome } from "../migration/copyResources.js";
import type { DnsChange } from "../migration/dnsChanges.js";
import { loadMigration, localIdFor, migrationIdFor, nowText, recordMigration, sourceKey } from "../migration/migrationStream.js";
import { planMigration, type MigrationPlan } from "../migration/plan.js";
import { DEFAULT_SOURCE_RATE, sourceApi } from "../migration/sourceApi.js";

export interface MigrateFromOptions {
  action: string | undefined;
  from: string;
  key: string | undefined;
  team: string | undefined;
  rate: string | undefined;
  json: boolean;
}

/** What a plan and every apply say they leave behind. */
export const NOT_COPIED = [
  "emails and broadcasts already sent (and their events, opens and clicks)",
  "API keys (create new ones here)",
  "suppressions, logs and webhook delivery history",
];

const actions = ["plan", "apply", "status"] as const;

/**
 * `tidings migrate --from <base URL> --key <API key> plan | apply | status`: copies a Resend-compatible
 * account into a team here. Its history is the `migration-<id>` stream (docs/events.md), one per team and
 * source, which `apply` continues and `status` reads.
 */
export async function migrateFrom(runtime: Runtime, options: MigrateFromOptions, out: CliOutput): Promise<number> {
  const action = options.action;
  if (!actions.includes(action as (typeof actions)[number]))
    throw new UsageError(`migrate --from needs one of ${actions.join(", ")}, after the options`);
  let source: URL;
  try {
    source = new URL(options.from);
  } catch {
    throw new UsageError(`--from must be the source API's base URL, such as https://api.resend.com, not "${options.from}"`);
  }
  if (source.protocol !== "https:" && source.protocol !== "http:") throw new UsageError("--from must be an http or https URL");
  const teamName = options.team ?? "default";
  const teamId = teamIdForName(teamName);
  if (!(await loadState(runtime.store, teamStream(teamId), teamDecider)).exists) throw new UsageError(`there is no team "${teamName}"`);
  const from = sourceKey(options.from);
  const migrationId = migrationIdFor(teamId, from);
  const state = await loadMigration(runtime.store, migrationId);

  if (action === "status") {
    const mapping = state.status === "none" ? undefined : state.mapping;
    const copied = Object.fromEntries(migratedKinds.map((k) => [k, mapping ? Object.keys(mapping[k]).length : 0]));
    const status = {
      migration_id: migrationId,
      source: from,
      team: teamName,
      status: state.status === "none" ? "not_started" : state.status === "completed" ? "completed" : "in_progress",
      runs_completed: state.status === "none" ? 0 : state.runsCompleted,
      last_completed_at: state.status === "none" ? null : state.lastCompletedAt,
      copied,
    };
    if (options.json) out.out(JSON.stringify(status));
    else {
      out.out(`migration from ${from} into team ${teamName}: ${status.status.replace("_", " ")}`);
      if (state.status !== "none")
        out.out(`runs completed: ${status.runs_completed}${status.last_completed_at ? `, the last at ${status.last_completed_at}` : ""}`);
      for (const kind of migratedKinds) out.out(`  ${label(kind).padEnd(18)} ${copied[kind]} copied`);
      if (state.status === "started") out.out("a run did not finish: `apply` again goes on where it stopped");
    }
    return 0;
  }

  if (!options.key) throw new UsageError(`migrate --from … ${action} needs --key, an API key of the source with full access`);
  const rate = options.rate === undefined ? DEFAULT_SOURCE_RATE : Number(options.rate);
  if (!Number.isFinite(rate) || rate <= 0 || rate > 1000) throw new UsageError("--rate must be a number of requests per second, above 0");
  const api = sourceApi({ baseUrl: from, key: options.key, rate });
  const mapping = state.status === "none" ? emptyMapping() : state.mapping;

  if (action === "plan") {
    const plan = await planMigration(api, runtime, mapping);
    if (options.json) out.out(JSON.stringify({ migration_id: migrationId, source: from, team: teamName, ...plan, not_copied: NOT_COPIED }));
    else printPlan(plan, from, teamName, out);
    return 0;
  }

  const metadata = operationMetadata("cli", systemClock, { teamId });
  await recordMigration(
    runtime.store,
    migrationId,
    { type: "StartMigration", migrationId, teamId, source: from, now: nowText() },
    metadata,
  );
  const started = Date.now();
  if (!options.json) out.err(`copying from ${from} into team ${teamName}, at most ${rate} requests/s`);
  const outcome = await copyResources({
    deps: { store: runtime.store, config: runtime.config, secret: runtime.secret },
    api,
    teamId,
    metadata,
    mapping,
    localId: (kind, sourceId) => localIdFor(migrationId, kind, sourceId),
    recordCopied: async (kind, sourceId, localId) =>
      void (await recordMigration(
        runtime.store,
        migrationId,
        { type: "RecordCopiedResource", kind, sourceId, localId, now: nowText() },
        metadata,
      )),
    progress: (line) => out.err(options.json ? JSON.stringify({ progress: line }) : line),
  }).catch((error: unknown) => {
    if (!(error instanceof CopyRefused)) throw error;
    out.err(`tidings: ${error.message}; what was copied before it stays recorded, and apply goes on from there`);
    return undefined;
  });
  if (!outcome) return 1;
  const copied = migratedKinds.reduce((sum, kind) => sum + outcome.copied[kind], 0);
  await recordMigration(runtime.store, migrationId, { type: "CompleteMigrationRun", copied, now: nowText() }, metadata);
  const seconds = (Date.now() - started) / 1000;
  if (options.json)
    out.out(
      JSON.stringify({
        migration_id: migrationId,
        copied: outcome.copied,
        already_copied: outcome.skipped,
        webhooks: outcome.webhooks.map((w) => ({ source_id: w.sourceId, id: w.id, endpoint: w.endpoint, signing_secret: w.signingSecret })),
        domains: outcome.domains.map((d) => ({ source_id: d.sourceId, id: d.id, name: d.name, records: d.records })),
        warnings: outcome.warnings,
        requests: api.counts.requests,
        rate_limited: api.counts.rateLimited,
        seconds,
      }),
    );
  else printOutcome(outcome, { copied, requests: api.counts.requests, rateLimited: api.counts.rateLimited, seconds }, out);
  return 0;
}

const emptyMapping = (): MigrationMapping => Object.fromEntries(migratedKinds.map((kind) => [kind, {}])) as unknown as MigrationMapping;

const label = (kind: MigratedKind) => (kind === "contact_property" ? "contact properties" : `${kind}s`);

function printPlan(plan: MigrationPlan, from: string, team: string, out: CliOutput): void {
  out.out(`Plan: copy ${from} into team ${team}`);
  for (const kind of migratedKinds) {
    const { total, copied, toCopy } = plan.resources[kind];
    out.out(`  ${label(kind).padEnd(18)} ${String(toCopy).padStart(5)} to copy${copied ? ` (${copied} of ${total} copied already)` : ""}`);
  }
  if (plan.resources.contact.toCopy > 0) out.out("  contacts keep their segment memberships, topic subscriptions and properties");
  if (plan.resources.template.toCopy > 0) out.out("  templates keep their published state");
  if (plan.resources.webhook.toCopy > 0) out.out("  webhooks get new signing secrets: apply prints each once; update your receivers");
  for (const domain of plan.domains) {
    out.out(`Domain ${domain.name}: a new DKIM key (a private key cannot be exported)`);
    if (domain.problem) out.out(`  cannot be copied: ${domain.problem}`);
    printRecords(domain.records, out);
  }
  out.out("Not copied:");
  for (const line of NOT_COPIED) out.out(`  ${line}`);
}

const actionText: Record<DnsChange["action"], string> = {
  keep: "stays valid",
  change: "change",
  add: "add",
  remove: "remove after switching",
};

function printRecords(records: DnsChange[], out: CliOutput): void {
  for (const r of records) {
    const priority = r.priority === undefined ? "" : ` (priority ${r.priority})`;
    out.out(`  ${actionText[r.action].padEnd(22)} ${r.record.padEnd(9)} ${r.type.padEnd(5)} ${r.name}  ${r.value}${priority}`);
    if (r.sourceValue !== undefined) out.out(`  ${"".padEnd(22)} ${"".padEnd(15)} was: ${r.sourceValue}`);
  }
}

function printOutcome(
  outcome: CopyOutcome,
  run: { copied: number; requests: number; rateLimited: number; seconds: number },
  out: CliOutput,
) {
  const already = migratedKinds.reduce((sum, kind) => sum + outcome.skipped[kind], 0);
  out.out(
    `copied ${run.copied} resources (${already} copied before) in ${run.seconds.toFixed(1)} s, ${run.requests} requests to the source`,
  );
  if (run.rateLimited > 0) out.out(`the source refused ${run.rateLimited} requests with 429; each was sent again after its retry-after`);
  for (const w of outcome.webhooks)
    out.out(
      w.signingSecret
        ? `webhook ${w.endpoint} (${w.id}): new signing secret ${w.signingSecret} (shown once)`
        : `webhook ${w.endpoint} (${w.id}): created by an interrupted run; read its signing secret with GET /webhooks/${w.id}`,
    );
  for (const d of outcome.domains) {
    out.out(`domain ${d.name} (${d.id}): publish these DNS records, then POST /domains/${d.id}/verify`);
    printRecords(d.records, out);
  }
  for (const warning of outcome.warnings) out.err(`warning: ${warning}`);
}
