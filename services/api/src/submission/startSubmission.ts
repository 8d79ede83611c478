import { createBlobStore } from "@tidings/blobs";
import type { Logger } from "@tidings/core";
import { suppressedRecipients } from "@tidings/sending";
import { hashApiKeyToken } from "../apiKeyTokens.js";
import { ApiKeyLookup } from "../plugins/apiKeyLookup.js";
import { rateBucketsFor } from "../plugins/rateLimitBuckets.js";
import { teamRateLimits } from "../plugins/teamRateLimits.js";
import { sendingDomainCache } from "../lookups/sendingDomainCache.js";
import { sendingPauseCheck } from "../lookups/sendingPauses.js";
import type { ApiServices } from "../services.js";
import type { SubmissionSmtpListener } from "./submissionSmtpServer.js";
import { submitMessage } from "./submitMessage.js";

/**
 * The SMTP submission listener of an api process, when SUBMISSION_SMTP_PORT asks for one, sending through
 * what `POST /emails` sends through: the same key lookup, rate limit, checks and append. `closeTimeoutMs`:
 * how long closing waits for sessions under way before it cuts them (a client keeps what it was not answered).
 */
export async function startSubmission(
  services: ApiServices,
  logger: Logger,
  closeTimeoutMs: number,
): Promise<SubmissionSmtpListener | undefined> {
  const { config, database } = services;
  if (config.SUBMISSION_SMTP_PORT === undefined) return undefined;
  // Imported only for a listener: smtp-server is resident megabytes an api without one never uses.
  const { startSubmissionSmtp } = await import("./submissionSmtpServer.js");
  const lookup = new ApiKeyLookup(database, services.store);
  const buckets = rateBucketsFor(database);
  const limitOf = teamRateLimits(database);
  const suppressed = suppressedRecipients(database, services.hashSubject);
  const blobs = createBlobStore(database);
  const deps = {
    prepare: { store: services.store, blobs, config, domains: sendingDomainCache(services.store) },
    send: { store: services.store, suppressed, paused: sendingPauseCheck(database), clock: services.clock },
    blobs,
    clock: services.clock,
    waitFor: services.waitFor,
  };
  const listener = await startSubmissionSmtp({
    host: config.SUBMISSION_SMTP_HOST ?? config.HOST,
    port: config.SUBMISSION_SMTP_PORT,
    securePort: config.SUBMISSION_SMTPS_PORT,
    serverName: new URL(config.PUBLIC_URL).hostname,
    maxMessageBytes: config.SUBMISSION_MAX_MESSAGE_BYTES,
    tls:
      config.SUBMISSION_TLS_CERT && config.SUBMISSION_TLS_KEY
        ? { certFile: config.SUBMISSION_TLS_CERT, keyFile: config.SUBMISSION_TLS_KEY }
        : undefined,
    authenticate: (password) => lookup.find(hashApiKeyToken(password)),
    async admit(key) {
      const limit = await limitOf(key.teamId);
      const decision = await buckets.take(key.teamId, limit);
      if (decision.allowed) return null;
      return { code: 452, message: `4.7.1 Too many requests: this team may make ${limit} requests per second, try again shortly` };
    },
    async refusedRecipient(key, address) {
      const [found] = await suppressed(key.teamId, [address]);
      if (!found) return null;
      return { code: 550, message: `5.1.1 <${address}>: the address is on the team's suppression list (${found.origin}), not sent` };
    },
    submit: (key, envelope, raw) => submitMessage(deps, key, envelope, raw),
    closeTimeoutMs,
    logger,
  });
  logger.info({ host: listener.host, port: listener.port, securePort: listener.securePort }, "SMTP submission listening");
  return listener;
}
