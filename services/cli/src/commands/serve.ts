import type { Config, Logger } from "@tidings/core";
import { bootstrapFirstKey, buildApp, createApiServices, handleShutdownSignals, startInbound } from "@tidings/api";
import { startForwarder } from "@tidings/bus";
import { createCheckpointWaiter, productProjections, startProjections } from "@tidings/projections";
import { startSagas } from "@tidings/sagas";
import { openRuntime, type Runtime } from "../runtime.js";
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
  /** The first API key's token, when this start created it. */
  bootstrapToken?: string;
  stop(): Promise<void>;
}

/**
 * `tidings serve`: one process playing one role, or all of them (embedded mode, `npm start`). The
 * projector role also runs the forwarder, because both are single-leader readers of `$all`; a second
 * projector process stands by and takes over when the leader goes.
 */
export async function serve(config: Config, logger: Logger, role: Role): Promise<Serving> {
  const runtime = await openRuntime(config, logger);
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const s of stops.splice(0).reverse()) await s().catch((error) => logger.error({ err: error }, "stop failed"));
    await runtime.close();
  };
  try {
    await migrateReadDatabase(runtime.database);
    const serving: Serving = { runtime, stop };
    if (role === "projector" || role === "all") {
      const running = await startProjections({ store: runtime.store, database: runtime.database, projections, logger });
      stops.push(() => running.stop());
      const forwarder = await startForwarder({ store: runtime.store, bus: runtime.bus, database: runtime.database, logger });
      stops.push(() => forwarder.stop());
    }
    if (role === "sagas" || role === "all") {
      const sagas = await startSagas({ store: runtime.store, database: runtime.database, bus: runtime.bus, config, secret: runtime.secret, logger });
      stops.push(() => sagas.stop());
    }
    if (role === "api" || role === "all") {
      const waiter = await createCheckpointWaiter(runtime.database, productProjections.map((p) => p.name));
      stops.push(() => waiter.close());
      const services = createApiServices({ store: runtime.store, database: runtime.database, config, secret: runtime.secret, waitFor: waiter.waitFor });
      const app = buildApp({ logger, services, readiness: runtime.readiness });
      await app.listen({ port: config.PORT, host: config.HOST });
      serving.url = config.PUBLIC_URL;
      // Stops run in reverse, so the api drains its in-flight requests before anything they use closes.
      const drain = handleShutdownSignals({ app, closeDependencies: async () => {}, logger, signals: [] });
      stops.push(() => drain.shutdown("stop"));
      const inbound = await startInbound(services, logger);
      if (inbound) {
        serving.inboundSmtp = { host: inbound.host, port: inbound.port };
        stops.push(() => inbound.close());
      }
      const first = await bootstrapFirstKey(services, config);
      if (first?.source === "generated") serving.bootstrapToken = first.token;
    }
    return serving;
  } catch (error) {
    await stop();
    throw error;
  }
}
