import { Resolver } from "node:dns/promises";
import { isIP } from "node:net";
import { createTransport } from "nodemailer";
import type SMTPTransport from "nodemailer/lib/smtp-transport/index.js";
import { summarizeOutcome } from "../deliveryOutcome.js";
import type { MailTransport, OutgoingMail, RecipientOutcome } from "../port.js";
import { deliverOverSmtp } from "../smtpReply.js";
import { socketWithoutDelay } from "../socketWithoutDelay.js";
import { resolveAddresses, resolveMxRoute } from "./mxRoute.js";

export interface MxOptions {
  /** `ip` or `ip:port` (`[v6]:port`); empty: the system's resolvers. */
  dnsServers: string[];
  /** 25, except in tests. */
  port: number;
  /** Verify the MX's certificate when the domain enforces TLS. */
  rejectUnauthorized: boolean;
  /** SMTP connections open at once, to all hosts together; more deliveries wait for a free one. */
  maxConnections: number;
}

const domainOf = (address: string) => address.slice(address.lastIndexOf("@") + 1).toLowerCase();

/** Could not reach this host at all, so the next one may do better (RFC 5321 §5.1). */
const unreachable = (outcomes: RecipientOutcome[]) =>
  outcomes.every((o) => (o.kind === "deferred" && o.code === undefined) || o.kind === "failed");

/**
 * Delivers straight to each recipient domain's mail exchangers, one SMTP transaction per domain,
 * trying the MX hosts in preference order until one answers.
 */
export function createMxTransport(options: MxOptions): MailTransport {
  const resolver = new Resolver({ timeout: 5_000, tries: 2 });
  if (options.dnsServers.length) resolver.setServers(options.dnsServers);

  let open = 0;
  const waiting: (() => void)[] = [];
  async function withConnection<T>(work: () => Promise<T>): Promise<T> {
    if (open < options.maxConnections) open++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await work();
    } finally {
      // A waiting delivery takes over this connection's place, so `open` stays the same.
      const next = waiting.shift();
      if (next) next();
      else open--;
    }
  }

  async function deliverToHost(host: string, address: string, mail: OutgoingMail) {
    const transporter = createTransport({
      host: address,
      port: options.port,
      secure: false,
      requireTLS: mail.tls === "enforced",
      opportunisticTLS: mail.tls === "opportunistic",
      // Opportunistic TLS takes any certificate (RFC 7435): encryption without authentication beats none.
      tls: { rejectUnauthorized: mail.tls === "enforced" && options.rejectUnauthorized, ...(!isIP(host) && { servername: host }) },
      connectionTimeout: 30_000,
      greetingTimeout: 30_000,
      socketTimeout: 120_000,
      getSocket: socketWithoutDelay,
    } as SMTPTransport.Options);
    try {
      return await deliverOverSmtp(() => transporter.sendMail({ envelope: mail.envelope, raw: mail.raw }), mail);
    } finally {
      transporter.close();
    }
  }

  async function deliverToDomain(domain: string, mail: OutgoingMail): Promise<RecipientOutcome[]> {
    const everyone = (outcome: Omit<RecipientOutcome, "recipient">) => mail.envelope.to.map((recipient) => ({ recipient, ...outcome }));
    const route = await resolveMxRoute(resolver, domain);
    if (route.kind !== "hosts") return everyone({ kind: route.kind, response: route.response });
    let last: RecipientOutcome[] | undefined;
    for (const host of route.hosts) {
      const addresses = isIP(host) ? [host] : await resolveAddresses(resolver, host);
      for (const address of addresses) {
        last = await withConnection(() => deliverToHost(host, address, mail));
        if (!unreachable(last)) return last;
      }
    }
    return (
      last ?? everyone({ kind: "deferred", response: `no address found for the mail exchangers of ${domain}: ${route.hosts.join(", ")}` })
    );
  }

  const inFlight = new Set<Promise<unknown>>();
  return {
    async send(mail) {
      const byDomain = new Map<string, string[]>();
      for (const recipient of mail.envelope.to) {
        const domain = domainOf(recipient);
        byDomain.set(domain, [...(byDomain.get(domain) ?? []), recipient]);
      }
      const sending = Promise.all(
        [...byDomain].map(([domain, to]) => deliverToDomain(domain, { ...mail, envelope: { from: mail.envelope.from, to } })),
      );
      inFlight.add(sending);
      try {
        const outcomes = (await sending).flat();
        return summarizeOutcome(mail.envelope.to.map((recipient) => outcomes.find((o) => o.recipient === recipient)!));
      } finally {
        inFlight.delete(sending);
      }
    },
    async close() {
      await Promise.allSettled(inFlight);
    },
  };
}
