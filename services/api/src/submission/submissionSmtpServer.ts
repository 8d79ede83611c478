import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import type { Logger } from "@tidings/core";
import {
  SMTPServer,
  type SMTPServerAuthentication,
  type SMTPServerDataStream,
  type SMTPServerOptions,
  type SMTPServerSession,
} from "smtp-server";
import type { ApiKeyPrincipal } from "../plugins/apiKeyLookup.js";
import { readMessageBytes } from "../smtpMessageBytes.js";
import { smtpReplyTo, type SmtpReply } from "./submissionReplies.js";

export interface SubmissionSmtpOptions {
  host: string;
  /** STARTTLS, or plain text when there is no certificate. */
  port: number;
  /** Implicit TLS (SMTPS), which needs `tls`. */
  securePort?: number | undefined;
  /** The name the listener greets with. */
  serverName: string;
  maxMessageBytes: number;
  tls?: { certFile: string; keyFile: string } | undefined;
  /** The live API key whose token is `password`, if any. */
  authenticate(password: string): Promise<ApiKeyPrincipal | undefined>;
  /** Takes one request from the team's rate limit: null when it may go on, else the 452 to answer. */
  admit(key: ApiKeyPrincipal): Promise<SmtpReply | null>;
  /** The reply for a recipient the team may not send to (on its suppression list); null when it may. */
  refusedRecipient(key: ApiKeyPrincipal, address: string): Promise<SmtpReply | null>;
  /** Records the message as an email and resolves with its id once it is recorded. */
  submit(key: ApiKeyPrincipal, envelope: { recipients: string[] }, raw: Buffer): Promise<string>;
  /** How long `close` waits for sessions under way before it cuts them (default 10 s). */
  closeTimeoutMs?: number;
  logger: Logger;
}

export interface SubmissionSmtpListener {
  host: string;
  port: number;
  securePort?: number;
  close(): Promise<void>;
}

const MAX_CLIENTS = 256;
/** RFC 5321 §4.5.3.1.8's minimum a server must take; the API's own limit is 50 per field. */
const MAX_RECIPIENTS = 100;

const reply = ({ code, message }: SmtpReply) => Object.assign(new Error(message), { responseCode: code });
const keyOf = (session: SMTPServerSession) => session.user as unknown as ApiKeyPrincipal;

/**
 * SMTP submission (RFC 6409) for software that speaks SMTP and not the API: AUTH PLAIN or LOGIN with any
 * username and an API key as the password, then each message becomes an email as `POST /emails` makes one.
 * With a certificate AUTH is refused until STARTTLS (smtp-server's 538), so a key never crosses in clear.
 * A message is answered 250 only once its email is recorded; what the API would refuse is refused with the
 * API's message (`smtpReplyTo`).
 */
export async function startSubmissionSmtp(options: SubmissionSmtpOptions): Promise<SubmissionSmtpListener> {
  const { logger } = options;
  const tls = options.tls ? { key: readFileSync(options.tls.keyFile), cert: readFileSync(options.tls.certFile) } : undefined;

  const handlers: SMTPServerOptions = {
    name: options.serverName,
    banner: "Tidings submission",
    size: options.maxMessageBytes,
    authMethods: ["PLAIN", "LOGIN"],
    authOptional: false,
    allowInsecureAuth: !tls,
    hideSTARTTLS: !tls,
    disabledCommands: tls ? [] : ["STARTTLS"],
    ...tls,
    logger: false,
    closeTimeout: options.closeTimeoutMs ?? 10_000,
    // Each client may hold a message of up to maxMessageBytes in memory while it is recorded.
    maxClients: MAX_CLIENTS,
    onAuth(auth: SMTPServerAuthentication, _session, callback) {
      options.authenticate(auth.password ?? "").then(
        (key) => {
          if (!key) return callback(reply({ code: 535, message: "5.7.8 Authentication failed: the password must be a live API key" }));
          callback(null, { user: key as unknown as string });
        },
        (error: unknown) => {
          logger.error({ err: error }, "submission: API key lookup failed");
          callback(reply({ code: 454, message: "4.7.0 Temporary authentication failure, try again later" }));
        },
      );
    },
    onMailFrom(_address, session, callback) {
      options.admit(keyOf(session)).then(
        (refused) => callback(refused ? reply(refused) : undefined),
        (error: unknown) => callback(reply(smtpReplyTo(error, logger))),
      );
    },
    onRcptTo(address, session, callback) {
      if (session.envelope.rcptTo.length >= MAX_RECIPIENTS) {
        callback(reply({ code: 452, message: `4.5.3 Too many recipients: at most ${MAX_RECIPIENTS} per message` }));
        return;
      }
      options.refusedRecipient(keyOf(session), address.address).then(
        (refused) => callback(refused ? reply(refused) : undefined),
        (error: unknown) => callback(reply(smtpReplyTo(error, logger))),
      );
    },
    onData(stream: SMTPServerDataStream, session, callback) {
      readMessageBytes(
        stream,
        (raw) => {
          const recipients = session.envelope.rcptTo.map(({ address }) => address);
          options.submit(keyOf(session), { recipients }, raw).then(
            (id) => callback(null, `2.0.0 Queued as ${id}`),
            (error: unknown) => callback(reply(smtpReplyTo(error, logger))),
          );
        },
        () => callback(reply({ code: 552, message: `5.3.4 Message too big: the limit is ${options.maxMessageBytes} bytes` })),
      );
    },
  };

  const listen = async (server: SMTPServer, port: number) => {
    server.on("error", (error) => logger.warn({ err: error }, "submission: SMTP connection error"));
    await new Promise<void>((resolve, reject) => {
      server.server.once("error", reject);
      server.listen(port, options.host, () => {
        server.server.off("error", reject);
        resolve();
      });
    });
    return (server.server.address() as AddressInfo).port;
  };
  const servers = [new SMTPServer(handlers)];
  const port = await listen(servers[0]!, options.port);
  let securePort: number | undefined;
  if (options.securePort !== undefined && tls) {
    const secure = new SMTPServer({ ...handlers, secure: true });
    servers.push(secure);
    securePort = await listen(secure, options.securePort).catch(async (error: unknown) => {
      await new Promise<void>((resolve) => servers[0]!.close(() => resolve()));
      throw error;
    });
  }
  return {
    host: options.host,
    port,
    ...(securePort === undefined ? {} : { securePort }),
    close: async () => {
      await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
    },
  };
}
