import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import type { Logger } from "@tidings/core";
import { SMTPServer, type SMTPServerAddress, type SMTPServerDataStream, type SMTPServerSession } from "smtp-server";
import type { InboundEnvelope, IntakeResult } from "./receiveMessage.js";
import type { ReceivingTeam } from "./inboundDomains.js";
import { ReportTooEarly } from "./recordOnEmail.js";
import { readMessageBytes } from "../smtpMessageBytes.js";

export interface InboundSmtpOptions {
  host: string;
  port: number;
  /** The name the listener greets with (INBOUND_HOST). */
  serverName: string;
  maxMessageBytes: number;
  tls?: { certFile: string; keyFile: string } | undefined;
  /** Domains whose every address takes reports (MAIL_HOST, INBOUND_HOST): where feedback loops send. */
  feedbackDomains: string[];
  teamsReceivingFor(domain: string): Promise<ReceivingTeam[]>;
  /** Whether `domain` is the return path of a domain (`send.<domain>`): bounces come back there. */
  isReturnPath(domain: string): Promise<boolean>;
  intake(envelope: InboundEnvelope, raw: Buffer): Promise<IntakeResult>;
  /** How long `close` waits for sessions under way before it cuts them (default 10 s). */
  closeTimeoutMs?: number;
  logger: Logger;
}

export interface InboundSmtpListener {
  host: string;
  port: number;
  close(): Promise<void>;
}

const MAX_CLIENTS = 256;
/** RFC 5321 §4.5.3.1.8's minimum a server must take; a sender with more splits the message. */
const MAX_RECIPIENTS = 100;

/** An SMTP reply for smtp-server: it answers with `responseCode` and the message. */
const reply = (code: number, message: string) => Object.assign(new Error(message), { responseCode: code });
const domainOf = (address: string) => address.slice(address.lastIndexOf("@") + 1).toLowerCase();

/**
 * The MX of receiving domains and of return paths, and the address feedback loops report to. It is no
 * relay: a recipient is taken only for a domain a team receives for, a return path, or a feedback domain,
 * else 550 at RCPT. At a return path or a feedback domain only reports are taken. A message is
 * answered 250 only once it is recorded; a failure to record answers 451, so the sender keeps it and
 * tries again, and the retry is recognised by the message's id (`inboundEmailId`).
 */
export async function startInboundSmtp(options: InboundSmtpOptions): Promise<InboundSmtpListener> {
  const { logger } = options;
  const feedback = new Set(options.feedbackDomains.map((d) => d.toLowerCase()));

  // What RCPT found for each address of a session, so DATA does not ask again.
  const teamsFound = new WeakMap<SMTPServerSession, Map<string, ReceivingTeam[]>>();

  /** The teams receiving at `address`; null when nobody takes mail there, not even reports. */
  async function lookUp(address: string): Promise<ReceivingTeam[] | null> {
    const domain = domainOf(address);
    if (feedback.has(domain)) return [];
    const [teams, returnPath] = await Promise.all([options.teamsReceivingFor(domain), options.isReturnPath(domain)]);
    return teams.length > 0 || returnPath ? teams : null;
  }

  const recipientsOf = (session: SMTPServerSession): InboundEnvelope["recipients"] =>
    session.envelope.rcptTo.map(({ address }) => ({ address, teams: teamsFound.get(session)?.get(address) ?? [] }));

  const server = new SMTPServer({
    name: options.serverName,
    banner: "Tidings inbound",
    size: options.maxMessageBytes,
    authOptional: true,
    disabledCommands: options.tls ? ["AUTH"] : ["AUTH", "STARTTLS"],
    hideSTARTTLS: !options.tls,
    ...(options.tls ? { key: readFileSync(options.tls.keyFile), cert: readFileSync(options.tls.certFile) } : {}),
    logger: false,
    closeTimeout: options.closeTimeoutMs ?? 10_000,
    // Each client may hold a message of up to maxMessageBytes in memory while it is recorded.
    maxClients: MAX_CLIENTS,
    onRcptTo(address: SMTPServerAddress, session, callback) {
      if (session.envelope.rcptTo.length >= MAX_RECIPIENTS) {
        callback(reply(452, `4.5.3 Too many recipients: at most ${MAX_RECIPIENTS} per message`));
        return;
      }
      lookUp(address.address).then(
        (teams) => {
          if (teams === null)
            return callback(reply(550, `5.1.1 <${address.address}>: this server does not receive mail for ${domainOf(address.address)}`));
          if (!teamsFound.has(session)) teamsFound.set(session, new Map());
          teamsFound.get(session)!.set(address.address, teams);
          callback();
        },
        (error: unknown) => {
          // The domain, not the address: logs are kept where an erasure cannot reach them.
          logger.error({ err: error, domain: domainOf(address.address) }, "inbound: recipient lookup failed");
          callback(reply(451, "4.3.0 Temporary failure looking up the recipient, try again later"));
        },
      );
    },
    onData(stream: SMTPServerDataStream, session, callback) {
      readMessageBytes(
        stream,
        (raw) => {
          const mailFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address || null : null;
          options.intake({ mailFrom, recipients: recipientsOf(session) }, raw).then(
            (result) => {
              if (result.received.length === 0 && result.report === null) {
                callback(reply(550, "5.7.1 This address takes feedback-loop (ARF) and delivery-status reports only"));
                return;
              }
              logger.info(
                { received: result.received, report: result.report, bytes: raw.byteLength, remote: session.remoteAddress },
                "inbound: message accepted",
              );
              callback(null, `2.0.0 Accepted${result.received.length > 0 ? ` as ${result.received.join(", ")}` : ""}`);
            },
            (error: unknown) => {
              if (error instanceof ReportTooEarly) {
                callback(reply(451, "4.3.0 The report is about an email whose delivery is still being recorded, try again later"));
                return;
              }
              logger.error({ err: error, remote: session.remoteAddress }, "inbound: recording a message failed");
              callback(reply(451, "4.3.0 Temporary failure recording the message, try again later"));
            },
          );
        },
        () => callback(reply(552, `5.3.4 Message too big: the limit is ${options.maxMessageBytes} bytes`)),
      );
    },
  });
  server.on("error", (error) => logger.warn({ err: error }, "inbound: SMTP connection error"));
  await new Promise<void>((resolve, reject) => {
    server.server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.server.off("error", reject);
      resolve();
    });
  });
  const address = server.server.address() as AddressInfo;
  return {
    host: options.host,
    port: address.port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
