import { createBlobStore } from "@tidings/blobs";
import type { Logger } from "@tidings/core";
import { bounceAddresses } from "@tidings/mail";
import type { ApiServices } from "../services.js";
import type { InboundSmtpListener } from "./inboundSmtpServer.js";
import { receiveMessage } from "./receiveMessage.js";
import { receivingTeams, returnPaths } from "./inboundDomains.js";

/**
 * The inbound SMTP listener of an api process, when INBOUND_SMTP_PORT asks for one. `closeTimeoutMs`: how
 * long closing waits for sessions under way before it cuts them (a sender keeps what it was not answered).
 */
export async function startInbound(
  services: ApiServices,
  logger: Logger,
  closeTimeoutMs: number,
): Promise<InboundSmtpListener | undefined> {
  const { config } = services;
  if (config.INBOUND_SMTP_PORT === undefined) return undefined;
  // Imported only for a listener: smtp-server is resident megabytes an api without one never uses.
  const { startInboundSmtp } = await import("./inboundSmtpServer.js");
  const deps = {
    store: services.store,
    blobs: createBlobStore(services.database),
    clock: services.clock,
    bounceAddresses: bounceAddresses(services.secret),
  };
  const listener = await startInboundSmtp({
    host: config.INBOUND_SMTP_HOST ?? config.HOST,
    port: config.INBOUND_SMTP_PORT,
    serverName: config.INBOUND_HOST,
    maxMessageBytes: config.INBOUND_MAX_MESSAGE_BYTES,
    tls:
      config.INBOUND_TLS_CERT && config.INBOUND_TLS_KEY
        ? { certFile: config.INBOUND_TLS_CERT, keyFile: config.INBOUND_TLS_KEY }
        : undefined,
    feedbackDomains: [config.MAIL_HOST, config.INBOUND_HOST],
    teamsReceivingFor: receivingTeams(services.database),
    isReturnPath: returnPaths(services.database),
    intake: (envelope, raw) => receiveMessage(deps, envelope, raw),
    closeTimeoutMs,
    logger,
  });
  logger.info({ host: listener.host, port: listener.port }, "inbound SMTP listening");
  return listener;
}
