import type { FastifyInstance } from "fastify";
import type { Logger } from "@tidings/core";

export interface ShutdownOptions {
  app: FastifyInstance;
  /** Closes what the app used (event store, database, bus), after the last request has been answered. */
  closeDependencies: () => Promise<void>;
  logger: Logger;
  /** In-flight requests get this long to finish; then their connections are cut. */
  drainTimeoutMs?: number;
  signals?: readonly NodeJS.Signals[];
}

export interface Shutdown {
  /** Starts (or joins) the shutdown; resolves when dependencies are closed. */
  shutdown(reason: string): Promise<void>;
  /** Stops listening for the signals, for embedders and tests. */
  removeSignalHandlers(): void;
}

/**
 * On SIGTERM (or SIGINT): stop accepting connections, let in-flight requests finish (requests arriving
 * on open keep-alive connections are still answered, with `Connection: close`), then close the
 * dependencies. Requests must not lose their event store or bus halfway, so the order matters.
 */
export function handleShutdownSignals(options: ShutdownOptions): Shutdown {
  const { app, logger, drainTimeoutMs = 10_000, signals = ["SIGTERM", "SIGINT"] } = options;
  let running: Promise<void> | undefined;

  const shutdown = (reason: string) => {
    running ??= (async () => {
      logger.info({ reason, drainTimeoutMs }, "shutting down: draining requests");
      const force = setTimeout(() => {
        logger.warn({ drainTimeoutMs }, "requests still running after the drain timeout; closing their connections");
        app.server.closeAllConnections();
      }, drainTimeoutMs);
      // A keep-alive connection whose request finished during the drain stays open, and keeps the server
      // from closing, until the client's keep-alive ends; close each one as soon as it falls idle.
      const reap = setInterval(() => app.server.closeIdleConnections(), 50);
      try {
        await app.close();
      } finally {
        clearTimeout(force);
        clearInterval(reap);
      }
      await options.closeDependencies();
      logger.info("shut down");
    })();
    return running;
  };

  const onSignal = (signal: NodeJS.Signals) => {
    shutdown(signal).catch((error: unknown) => {
      logger.error({ err: error }, "shutdown failed");
      process.exitCode = 1;
    });
  };
  for (const signal of signals) process.on(signal, onSignal);

  return {
    shutdown,
    removeSignalHandlers: () => {
      for (const signal of signals) process.off(signal, onSignal);
    },
  };
}
