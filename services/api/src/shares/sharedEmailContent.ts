import { BlobNotFoundError, createBlobStore } from "@tidings/blobs";
import { loadState } from "@tidings/commands";
import { formatTimestamp } from "@tidings/core";
import { emailShareDecider, emailShareLinkStatus, emailShareStream } from "@tidings/domain";
import { hasPlainTextBody } from "@tidings/mail";
import { isErasedText } from "@tidings/privacy";
import { parseReceived } from "../inbound/parseReceived.js";
import { emailQueries } from "../queries/emails.js";
import { inboundEmailQueries } from "../queries/inboundEmails.js";
import type { ApiServices } from "../services.js";
import type { ShareLinks } from "./shareLinks.js";

/** What a shared email shows: its headers as the API shows them (without bcc), and its body. */
export interface SharedMessage {
  subject: string;
  from: string;
  to: string[];
  cc: string[];
  /** A wire timestamp: when it was sent (accepted) or received. */
  date: string;
  html: string | null;
  text: string | null;
  /** When the link stops working, a wire timestamp. */
  expiresAt: string;
}

/** Why a link shows nothing: a link never made here (or changed), one revoked or past its expiry, or an email whose content is gone. */
export type SharedEmailAnswer =
  { kind: "shown"; message: SharedMessage } | { kind: "invalid" } | { kind: "revoked" } | { kind: "expired" } | { kind: "gone" };

/**
 * Resolves a share link's token to what its page shows. The token's signature says the link was made
 * here; the email's share stream says whether it still works (revocation, expiry); the read models give the
 * content, which an erasure or the content's retention may have taken (docs/privacy.md): then the page
 * says so and shows nothing of the email.
 */
export function sharedEmails(services: ApiServices, links: ShareLinks) {
  const blobs = createBlobStore(services.database);
  const sent = emailQueries(services.database, new URL(services.config.PUBLIC_URL).hostname);
  const received = inboundEmailQueries(services.database);

  async function receivedMessage(teamId: string, emailId: string) {
    const found = await received.get(teamId, emailId);
    if (!found || isErasedText(found.item.subject)) return undefined;
    const raw = await blobs.get(found.rawBlob).catch((error: unknown) => {
      if (error instanceof BlobNotFoundError) return null;
      throw error;
    });
    if (raw === null) return undefined;
    const parsed = await parseReceived(raw, "data_uri");
    const { item } = found;
    return {
      subject: item.subject,
      from: item.from,
      to: item.to,
      cc: item.cc ?? [],
      date: item.created_at,
      html: typeof parsed.html === "string" ? parsed.html : null,
      text: hasPlainTextBody(raw) ? (parsed.text ?? null) : null,
    };
  }

  async function sentMessage(teamId: string, emailId: string) {
    const email = await sent.get(teamId, emailId);
    if (!email || isErasedText(email.subject) || isErasedText(email.html) || isErasedText(email.text)) return undefined;
    return {
      subject: email.subject,
      from: email.from,
      to: email.to,
      cc: email.cc ?? [],
      date: email.created_at,
      html: email.html,
      text: email.text,
    };
  }

  return async function resolve(token: string | undefined): Promise<SharedEmailAnswer> {
    const claims = token === undefined ? undefined : links.read(token);
    if (!claims) return { kind: "invalid" };
    const state = await loadState(services.store, emailShareStream(claims.emailId), emailShareDecider);
    const now = services.clock.now();
    const status = emailShareLinkStatus(state, claims.shareId, formatTimestamp(now));
    if (status === "unknown" || state.status !== "shared") return { kind: "invalid" };
    if (status === "revoked") return { kind: "revoked" };
    if (status === "expired" || claims.expiresAt * 1000 <= now.getTime()) return { kind: "expired" };
    const message =
      state.source === "sent" ? await sentMessage(state.teamId, state.emailId) : await receivedMessage(state.teamId, state.emailId);
    if (!message) return { kind: "gone" };
    return { kind: "shown", message: { ...message, expiresAt: state.links[claims.shareId]!.expiresAt } };
  };
}
