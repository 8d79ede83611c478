import { noMetrics, StopOrder, type Config, type Logger } from "@tidings/core";
import { bootstrapFirstKey, buildApp, createApiServices, handleShutdownSignals, startInbound, startSubmission } from "@tidings/api";
import { registerForwarderLagMetrics, startForwarder } from "@tidings/bus";
import {
  createCheckpointWaiter,
  productProjections,
  projectionLagCheck,
  registerEmailOutcomeMetrics,
  registerProjectionLagMetrics,
  registerSendingPauseMetrics,
  startProjections,
} from "@tidings/projections";
import { sagaDurables, startSagas } from "@tidings/sagas";
import { sealKeys, startPeriodicSealing } from "@tidings/eventstore";
import { startAdminChannel } from "../adminChannel.js";
import type { CliOutput } from "../cliOutput.js";
import { openRuntime, type Runtime } from "../runtime.js";
import { startRoleTracing } from "../roleTracing.js";
import { projections } from "../projections.js";
import { migrateReadDatabase } from "./migrate.js";

export type Role = "api" | "projector" | "sagas" | "all";
export const roles: Role[] = ["api", "projector", "sagas", "all"];

export interface Serving {
  runtime: Runtime;
  /** The URL the api listens on (with the port it got), when this process serves the api. */
  url?: string;
  /** Where the inbound SMTP listener took connections, when INBOUND_SMTP_PORT started one. */
  inboundSmtp?: { host: string; port: number };
  /** Where SMTP submission took connections, when SUBMISSION_SMTP_PORT started it (`securePort`: implicit TLS). */
  submissionSmtp?: { host: string; port: number; securePort?: number };
  /** Where Prometheus scrapes this process, when METRICS_PORT is set. */
  metricsUrl?: string;
  /** The first API key's token, when this start created it. */
  bootstrapToken?: string;
  stop(): Promise<void>;
  /** While `stop` runs: the parts not stopped yet, with what each still has under way. */
  unfinished(): string[];
}

export interface ServeOptions {
  /**
   * Embedded mode: runs the CLI's commands sent to this process, which alone may open DATA_DIR, through
   * a loopback admin channel (adminChannel.ts). The CLI passes its command table's runner.
   */
  commands?: (argv: string[], runtime: Runtime, out: CliOutput) => Promise<number>;
}

/**
 * `tidings serve`: one process playing one role, or all of them (embedded mode, `npm start`). The
 * projector role also runs the forwarder, because both are single-leader readers of `$all`; a second
 * projector process stands by and takes over when the leader goes.
 */
export async function serve(config: Config, logger: Logger, role: Role, options: ServeOptions = {}): Promise<Serving> {
  // Imported only when asked for: prom-client is a dozen megabytes resident that a process without metrics never uses.
  const prometheusMetrics = config.METRICS_PORT === undefined ? undefined : await import("@tidings/metrics");
  const prometheus = prometheusMetrics?.createPrometheusMetrics();
  const metrics = prometheus?.metrics ?? noMetrics;
  const parts = new StopOrder();
  // Stopped last, so that the spans of everything stopping before it are exported.
  const tracing = await startRoleTracing(config, role, logger);
  if (tracing) parts.add("tracing", () => tracing.shutdown());
  const runtime = await openRuntime(config, logger, metrics).catch(async (error: unknown) => {
    await tracing?.shutdown();
    throw error;
  });
  parts.add("stores", () => runtime.close());
  const stop = () => parts.stop((error, part) => logger.error({ err: error, part }, "stop failed"));
  try {
    await migrateReadDatabase(runtime.database);
    const serving: Serving = { runtime, stop, unfinished: () => parts.unfinished() };
    if (prometheus) {
      // One listener per process: in `--role all` it covers every role.
      const server = await prometheusMetrics!.startMetricsServer({
        registry: prometheus.registry,
        host: config.METRICS_HOST,
        port: config.METRICS_PORT!,
        token: config.METRICS_TOKEN,
        logger,
      });
      serving.metricsUrl = server.url;
      parts.add("metrics", () => server.close());
    }
    if (role === "projector" || role === "all") {
      const running = await startProjections({ store: runtime.store, database: runtime.database, projections, logger });
      parts.add("projections", () => running.stop());
      const forwarder = await startForwarder({ store: runtime.storedEvents, bus: runtime.bus, database: runtime.database, logger });
      parts.add("forwarder", () => forwarder.stop());
      const measured = { store: runtime.storedEvents, database: runtime.database, metrics };
      registerProjectionLagMetrics({ ...measured, names: projections.map((p) => p.name) });
      registerForwarderLagMetrics(measured);
      registerEmailOutcomeMetrics(measured);
      registerSendingPauseMetrics(measured);
      if (config.AUDIT_SEAL_INTERVAL_MS > 0) {
        const sealing = startPeriodicSealing(runtime.storedEvents, sealKeys(runtime.secret), config.AUDIT_SEAL_INTERVAL_MS, {
          sealed: (outcome) => {
            if (outcome.sealed) logger.info({ sequence: outcome.seal.sequence, until: outcome.seal.until }, "event store sealed");
          },
          failed: (error) => logger.warn({ err: error }, "sealing the event store failed; trying again at the next interval"),
        });
        parts.add("sealing", () => sealing.stop());
      }
    }
    if (role === "sagas" || role === "all") {
      const sagas = await startSagas({
        store: runtime.store,
        database: runtime.database,
        bus: runtime.bus,
        config,
        secret: runtime.secret,
        keys: runtime.privacy.keys,
        logger,
        metrics,
      });
      parts.add(
        "sagas",
        () => sagas.stop(),
        () => sagas.unfinished(),
      );
    }
    if (role === "api" || role === "all") {
      const readModels = productProjections.map((p) => p.name);
      const waiter = await createCheckpointWaiter(runtime.database, readModels);
      parts.add("read-your-writes waiter", () => waiter.close());
      const services = createApiServices({
        store: runtime.store,
        keys: runtime.privacy.keys,
        database: runtime.database,
        config,
        secret: runtime.secret,
        waitFor: waiter.waitFor,
      });
      const readiness = { ...runtime.readiness };
      if (config.READY_MAX_PROJECTION_LAG_SECONDS > 0) {
        readiness.projections = projectionLagCheck({
          store: runtime.storedEvents,
          database: runtime.database,
          names: readModels,
          maxSeconds: config.READY_MAX_PROJECTION_LAG_SECONDS,
        });
      }
      // Before listening: once `/health` answers, the first key works (a client that waits for it needs no more).
      const first = await bootstrapFirstKey(services, config, { projectorInProcess: role === "all", logger });
      if (first?.source === "generated") serving.bootstrapToken = first.token;
      const app = buildApp({ logger, services, readiness, metrics, deadLetters: { bus: runtime.bus, durables: sagaDurables } });
      await app.listen({ port: config.PORT, host: config.HOST });
      serving.url = config.PUBLIC_URL;
      // Stops run in reverse, so the api drains its in-flight requests before anything they use closes. The
      // SMTP listeners' sessions, then the requests, get a share of the stop's time each; the rest is
      // for what stops after them.
      const drain = handleShutdownSignals({
        app,
        closeDependencies: async () => {},
        logger,
        signals: [],
        drainTimeoutMs: config.SHUTDOWN_TIMEOUT_MS / 2,
      });
      parts.add("api", () => drain.shutdown("stop"));
      // Both SMTP listeners close side by side, so they share one quarter of the stop's time.
      const smtpCloseMs = config.SHUTDOWN_TIMEOUT_MS / 4;
      const inbound = await startInbound(services, logger, smtpCloseMs);
      if (inbound) {
        serving.inboundSmtp = { host: inbound.host, port: inbound.port };
      }
      const submission = await startSubmission(services, logger, smtpCloseMs).catch(async (error: unknown) => {
        await inbound?.close();
        throw error;
      });
      if (submission) {
        const { host, port, securePort } = submission;
        serving.submissionSmtp = { host, port, ...(securePort === undefined ? {} : { securePort }) };
      }
      if (inbound || submission) parts.add("SMTP listeners", () => Promise.all([inbound?.close(), submission?.close()]).then(() => {}));
    }
    const run = options.commands;
    if (run && runtime.dataDir) {
      // Stopped first: a command under way ends with the stores' closing rather than after it.
      const channel = await startAdminChannel(runtime.dataDir, (argv, out) => run(argv, runtime, out), logger);
      parts.add("admin channel", () => channel.close());
    }
    return serving;
  } catch (error) {
    await stop();
    throw error;
  }
}
