import type { AddressInfo } from "node:net";
import { SMTPServer, type SMTPServerSession } from "smtp-server";
import { testCertificate } from "./testCertificate.js";

export interface SinkReply {
  code: number;
  message: string;
}

export interface ReceivedMessage {
  envelope: { from: string; to: string[] };
  raw: Buffer;
  /** The Message-ID header as written, `<…>`, or null. */
  messageId: string | null;
  /** Whether the message came over TLS (STARTTLS). */
  secure: boolean;
  receivedAt: Date;
}

export interface SmtpSinkOptions {
  /** Offer STARTTLS with a generated self-signed certificate. Default false: STARTTLS is not offered. */
  starttls?: boolean;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
}

/**
 * A real SMTP server on loopback that keeps what it accepts, for tests of everything that sends mail.
 * It can be told to refuse chosen recipients at RCPT, to answer the next N messages with an error after
 * DATA, and to hold its DATA replies (to kill a sender between the message and the 250).
 */
export interface SmtpSink {
  host: string;
  port: number;
  /** `smtp://host:port`, for SMTP_URL. */
  url: string;
  /** Accepted messages, in the order of their 250. */
  received: ReceivedMessage[];
  /** DATA transactions answered with an error by `failNext`. */
  refusedMessages: number;
  /** Client connections open now, and the most open at once since start or `reset`. */
  openConnections: number;
  peakConnections: number;
  /** RCPT TO this address (any case) answers `reply` until `reset`, or only the next `times` times, then accepts. */
  refuseRecipient(address: string, reply: SinkReply, times?: number): void;
  /** The next `count` messages get `reply` after DATA instead of 250, and are not kept. */
  failNext(count: number, reply: SinkReply): void;
  /** Waits this long before each DATA reply. */
  delayReplies(ms: number): void;
  /**
   * Messages received whose reply is being held by `delayReplies`: each is kept once its reply goes, whether or not its
   * client is still there.
   */
  heldReplies: number;
  /** Accepted messages whose Message-ID is `messageId`. */
  withMessageId(messageId: string): ReceivedMessage[];
  /** Resolves once `count` messages have been accepted in all; rejects after `timeoutMs` (default 10 s). */
  waitForMessages(count: number, timeoutMs?: number): Promise<ReceivedMessage[]>;
  /** Resolves once `condition` holds for the accepted messages, checked on each one; rejects after `timeoutMs`. */
  waitFor(condition: (received: ReceivedMessage[]) => boolean, timeoutMs?: number): Promise<ReceivedMessage[]>;
  /** Forgets received messages and every rule. */
  reset(): void;
  close(): Promise<void>;
}

const messageIdOf = (raw: Buffer) => {
  const end = raw.indexOf("\r\n\r\n");
  const headers = raw.subarray(0, end === -1 ? raw.length : end).toString("latin1");
  return /^Message-ID:[ \t]*(<[^>\r\n]*>)/im.exec(headers)?.[1] ?? null;
};

const replyError = (reply: SinkReply) => Object.assign(new Error(reply.message), { responseCode: reply.code });

export async function startSmtpSink(options: SmtpSinkOptions = {}): Promise<SmtpSink> {
  const host = options.host ?? "127.0.0.1";
  const refusedRecipients = new Map<string, { reply: SinkReply; remaining: number }>();
  let failures: { remaining: number; reply: SinkReply } | undefined;
  let replyDelayMs = 0;
  const waiters = new Set<() => void>();

  const tls = options.starttls ? await testCertificate() : undefined;
  const server = new SMTPServer({
    secure: false,
    ...(tls ? { key: tls.key, cert: tls.cert } : { disabledCommands: ["STARTTLS"] }),
    authOptional: true,
    allowInsecureAuth: true,
    onAuth: (auth, _session, callback) => callback(null, { user: auth.username ?? "anyone" }),
    logger: false,
    size: 60 * 1024 * 1024,
    closeTimeout: 500,
    onConnect(_session, callback) {
      sink.openConnections++;
      sink.peakConnections = Math.max(sink.peakConnections, sink.openConnections);
      callback();
    },
    onClose() {
      sink.openConnections--;
    },
    onRcptTo(address, _session, callback) {
      const refusal = refusedRecipients.get(address.address.toLowerCase());
      if (!refusal || refusal.remaining <= 0) return callback();
      refusal.remaining--;
      callback(replyError(refusal.reply));
    },
    onData(stream, session: SMTPServerSession, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const answer = () => {
          if (failures && failures.remaining > 0) {
            failures.remaining--;
            sink.refusedMessages++;
            return callback(replyError(failures.reply));
          }
          const raw = Buffer.concat(chunks);
          sink.received.push({
            envelope: {
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
              to: session.envelope.rcptTo.map((r) => r.address),
            },
            raw,
            messageId: messageIdOf(raw),
            secure: session.secure,
            receivedAt: new Date(),
          });
          for (const wake of waiters) wake();
          callback(null, "OK: queued as " + sink.received.length);
        };
        if (replyDelayMs > 0) {
          sink.heldReplies++;
          setTimeout(() => {
            sink.heldReplies--;
            answer();
          }, replyDelayMs);
        } else answer();
      });
    },
  });

  await new Promise<void>((resolve, reject) => {
    server.server.once("error", reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  server.on("error", () => {});
  const port = (server.server.address() as AddressInfo).port;

  const sink: SmtpSink = {
    host,
    port,
    url: `smtp://${host}:${port}`,
    received: [],
    refusedMessages: 0,
    heldReplies: 0,
    openConnections: 0,
    peakConnections: 0,
    refuseRecipient(address, reply, times = Infinity) {
      refusedRecipients.set(address.toLowerCase(), { reply, remaining: times });
    },
    failNext(count, reply) {
      failures = { remaining: count, reply };
    },
    delayReplies(ms) {
      replyDelayMs = ms;
    },
    withMessageId(messageId) {
      return sink.received.filter((m) => m.messageId === messageId);
    },
    waitForMessages(count, timeoutMs = 10_000) {
      return sink
        .waitFor((received) => received.length >= count, timeoutMs)
        .catch(() => {
          throw new Error(`the SMTP sink holds ${sink.received.length} messages after ${timeoutMs} ms, expected ${count}`);
        });
    },
    waitFor(condition, timeoutMs = 10_000) {
      if (condition(sink.received)) return Promise.resolve(sink.received);
      return new Promise((resolve, reject) => {
        const wake = () => {
          if (!condition(sink.received)) return;
          waiters.delete(wake);
          clearTimeout(timer);
          resolve(sink.received);
        };
        const timer = setTimeout(() => {
          waiters.delete(wake);
          reject(
            new Error(`the SMTP sink's messages did not meet the condition within ${timeoutMs} ms (it holds ${sink.received.length})`),
          );
        }, timeoutMs);
        waiters.add(wake);
      });
    },
    reset() {
      sink.received.length = 0;
      sink.refusedMessages = 0;
      sink.peakConnections = sink.openConnections;
      refusedRecipients.clear();
      failures = undefined;
      replyDelayMs = 0;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return sink;
}
