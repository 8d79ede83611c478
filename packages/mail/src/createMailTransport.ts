import { join } from "node:path";
import type { Config, Logger } from "@tidings/core";
import { createMxTransport } from "./mx/mxTransport.js";
import { createOutboxTransport } from "./outbox/outboxTransport.js";
import type { MailTransport } from "./port.js";
import { createSmtpTransport } from "./smtp/smtpTransport.js";

export type MailTransportConfig = Pick<
  Config,
  "MAIL_TRANSPORT" | "DATA_DIR" | "SMTP_URL" | "MAIL_CONCURRENCY" | "DNS_SERVERS" | "MX_PORT" | "MX_TLS_REJECT_UNAUTHORIZED"
>;

/** The transport `MAIL_TRANSPORT` names, configured from the settings. */
export function createMailTransport(config: MailTransportConfig, logger: Logger): MailTransport {
  switch (config.MAIL_TRANSPORT) {
    case "outbox": {
      const directory = join(config.DATA_DIR, "outbox");
      logger.info({ directory }, "mail goes to .eml files in the outbox");
      return createOutboxTransport(directory);
    }
    case "smtp": {
      if (!config.SMTP_URL) throw new Error("MAIL_TRANSPORT=smtp needs SMTP_URL");
      logger.info({ relay: new URL(config.SMTP_URL).host, connections: config.MAIL_CONCURRENCY }, "mail goes through an SMTP relay");
      return createSmtpTransport({ url: config.SMTP_URL, maxConnections: config.MAIL_CONCURRENCY });
    }
    case "mx":
      logger.info(
        { dnsServers: config.DNS_SERVERS.length ? config.DNS_SERVERS : "system", port: config.MX_PORT },
        "mail goes straight to each domain's MX",
      );
      return createMxTransport({
        dnsServers: config.DNS_SERVERS,
        port: config.MX_PORT,
        rejectUnauthorized: config.MX_TLS_REJECT_UNAUTHORIZED,
        maxConnections: config.MAIL_CONCURRENCY,
      });
  }
}
