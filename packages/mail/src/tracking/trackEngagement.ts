import { clickToken, openToken } from "./trackingTokens.js";

export interface TrackingOptions {
  /** `https://<tracking_subdomain>.<domain>`, or TRACKING_BASE_URL's base; no trailing slash. */
  baseUrl: string;
  secret: string;
  emailId: string;
  opens: boolean;
  clicks: boolean;
  /** Links left as they are: the recipient's own unsubscribe and preference pages. */
  keep?: (url: string) => boolean;
}

const anchorHref = /(<a\b[^>]*?\bhref\s*=\s*)(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/gi;
const maxLinks = 0xffff;

const named: Record<string, string> = { amp: "&", quot: '"', apos: "'", lt: "<", gt: ">", nbsp: "\u00a0" };
/** An attribute value as the browser reads it: the URL a click goes to. */
function decodeAttribute(value: string): string {
  return value.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, entity: string) => {
    if (entity[0] === "#") {
      const code = entity[1] === "x" || entity[1] === "X" ? parseInt(entity.slice(2), 16) : parseInt(entity.slice(1), 10);
      return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return named[entity.toLowerCase()] ?? whole;
  });
}

const pixelOf = (url: string) =>
  `<img src="${url}" width="1" height="1" alt="" border="0" style="height:1px!important;width:1px!important;border-width:0!important;margin:0!important;padding:0!important" />`;

/**
 * The html with each http(s) link pointing through `/c/<token>` and a 1×1 pixel `/o/<token>` before
 * `</body>` (or at the end). Deterministic: the same email yields the same bytes on every attempt, so a
 * retry or a crash's repeat is recognisably the same message.
 */
export function trackEngagement(html: string, options: TrackingOptions): string {
  const { baseUrl, secret, emailId } = options;
  let tracked = html;
  if (options.clicks) {
    let linkIndex = 0;
    tracked = tracked.replace(anchorHref, (whole, prefix: string, double?: string, single?: string, bare?: string) => {
      const url = decodeAttribute((double ?? single ?? bare ?? "").trim());
      if (!/^https?:\/\/[^\s]/i.test(url) || options.keep?.(url) || linkIndex > maxLinks) return whole;
      return `${prefix}"${baseUrl}/c/${clickToken(secret, { emailId, linkIndex: linkIndex++, url })}"`;
    });
  }
  if (!options.opens) return tracked;
  const pixel = pixelOf(`${baseUrl}/o/${openToken(secret, emailId)}`);
  const bodyEnd = tracked.search(/<\/body\s*>(?![\s\S]*<\/body\s*>)/i);
  return bodyEnd === -1 ? tracked + pixel : tracked.slice(0, bodyEnd) + pixel + tracked.slice(bodyEnd);
}
