import type { EmailEvent } from "./events.js";

/**
 * Tells a person's open or click from a machine's. Privacy proxies fetch every image of a message as it
 * arrives, and security gateways follow every link before the recipient sees it; counted as engagement,
 * they make every email look opened and clicked, and would trigger automations nobody asked for.
 */
export interface EngagementRequest {
  kind: "open" | "click";
  ipAddress: string | null;
  userAgent: string | null;
  /** When the request came, and when the email was first delivered (null: no delivery recorded yet). */
  at: Date;
  deliveredAt: Date | null;
}

export interface EngagementClass {
  machine: boolean;
  reason: string | null;
}

/** A person cannot read a message and follow its link this soon after it arrived; a scanner does it during delivery. */
export const humanClickDelayMs = 2_000;

/** User agents of link scanners and proxies, by the name their requests carry. */
const agentPatterns: [RegExp, string][] = [
  // Apple Mail Privacy Protection fetches through its relays with this bare agent and nothing else.
  [/^Mozilla\/5\.0$/, "apple_mail_privacy_protection"],
  [/Safe ?Links|Microsoft Office Protection|BingPreview/i, "microsoft_safe_links"],
  [/Proofpoint|ppops-/i, "proofpoint"],
  [/Mimecast/i, "mimecast"],
  [/Barracuda/i, "barracuda"],
  [/Symantec|MessageLabs|Forcepoint|Trend ?Micro|Sophos|FireEye|Cisco.?(IronPort|ESA)|Zscaler|Check ?Point/i, "security_gateway"],
  [/Yahoo.*(Mail)?.*Proxy|YahooMailProxy/i, "yahoo_mail_proxy"],
  [/HeadlessChrome|PhantomJS|Puppeteer|Playwright|Selenium/i, "headless_browser"],
  [
    /\b(curl|Wget|python-requests|python-urllib|aiohttp|Go-http-client|okhttp|Java\/|Apache-HttpClient|libwww-perl|node-fetch|undici|axios)\b/i,
    "http_library",
  ],
  [/bot\b|crawler|spider|facebookexternalhit|Slackbot|preview/i, "crawler"],
];

/**
 * Address blocks whose requests are scanners, not readers (IPv4; the published ranges of the gateways'
 * link-checking services). Apple's relays sit in 17.0.0.0/8 as well as behind CDNs, hence the agent rule too.
 */
const networkBlocks: [string, string][] = [
  ["17.0.0.0/8", "apple_mail_privacy_protection"],
  ["40.92.0.0/15", "microsoft_safe_links"],
  ["40.94.0.0/16", "microsoft_safe_links"],
  ["40.107.0.0/16", "microsoft_safe_links"],
  ["52.100.0.0/14", "microsoft_safe_links"],
  ["104.47.0.0/17", "microsoft_safe_links"],
  ["67.231.144.0/20", "proofpoint"],
  ["148.163.128.0/19", "proofpoint"],
  ["205.139.110.0/24", "mimecast"],
  ["207.211.30.0/24", "mimecast"],
  ["91.220.42.0/24", "mimecast"],
  ["146.101.78.0/24", "mimecast"],
  ["64.235.144.0/20", "barracuda"],
  ["209.222.80.0/21", "barracuda"],
];

function ipv4Number(text: string): number | null {
  const parts = text.replace(/^::ffff:/i, "").split(".");
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return null;
  return parts.reduce((n, p) => n * 256 + Number(p), 0);
}

const blocks = networkBlocks.map(([cidr, reason]) => {
  const [base, bits] = cidr.split("/");
  const size = 2 ** (32 - Number(bits));
  const start = Math.floor(ipv4Number(base!)! / size) * size;
  return { start, end: start + size, reason };
});

function networkReason(ipAddress: string | null): string | null {
  const n = ipAddress === null ? null : ipv4Number(ipAddress);
  if (n === null) return null;
  return blocks.find((b) => n >= b.start && n < b.end)?.reason ?? null;
}

/**
 * Google's image proxy is not on the list: Gmail fetches the pixel when the reader opens the message, so
 * its requests are real opens, only anonymised.
 */
export function classifyEngagement(request: EngagementRequest): EngagementClass {
  const agent = request.userAgent?.trim() ?? "";
  if (agent === "") return { machine: true, reason: "no_user_agent" };
  const byAgent = agentPatterns.find(([pattern]) => pattern.test(agent))?.[1];
  if (byAgent) return { machine: true, reason: byAgent };
  const byNetwork = networkReason(request.ipAddress);
  if (byNetwork) return { machine: true, reason: byNetwork };
  if (
    request.kind === "click" &&
    (request.deliveredAt === null || request.at.getTime() - request.deliveredAt.getTime() < humanClickDelayMs)
  )
    return { machine: true, reason: "click_within_2s_of_delivery" };
  return { machine: false, reason: null };
}

/** What a tracking request brings to the email's stream. */
export interface Engagement {
  ipAddress: string | null;
  userAgent: string | null;
  /** Wire timestamp of the request. */
  now: string;
}

/** Wire timestamps (`YYYY-MM-DD HH:MM:SS.ffffff+00`) as instants; ISO 8601 is read too. */
const instant = (text: string) => new Date(text.replace(" ", "T").replace(/([+-]\d{2})$/, "$1:00"));

/** The EmailOpened or EmailClicked a tracking request records, classified. */
export function decideEngagement(
  command: Engagement & ({ type: "RecordEmailOpened" } | { type: "RecordEmailClicked"; link: string; linkIndex: number }),
  email: { emailId: string; deliveredAt: string | null },
): EmailEvent[] {
  const { ipAddress, userAgent, now } = command;
  const kind = command.type === "RecordEmailOpened" ? "open" : "click";
  const { machine, reason } = classifyEngagement({
    kind,
    ipAddress,
    userAgent,
    at: instant(now),
    deliveredAt: email.deliveredAt === null ? null : instant(email.deliveredAt),
  });
  const seen = { emailId: email.emailId, ipAddress, userAgent, machine, machineReason: reason };
  if (command.type === "RecordEmailOpened") return [{ type: "EmailOpened", data: { ...seen, openedAt: now } }];
  return [{ type: "EmailClicked", data: { ...seen, link: command.link, linkIndex: command.linkIndex, clickedAt: now } }];
}
