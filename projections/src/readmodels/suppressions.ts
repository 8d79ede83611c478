import { deterministicId } from "@tidings/core";
import { bareAddresses, type EmailEvent, type SuppressionEvent, type SuppressionOrigin } from "@tidings/domain";
import { erasedText, isErasedText, subjectTag } from "@tidings/privacy";
import { holds, type BatchContext, type Projection } from "../engine/projection.js";
import { handlersOf } from "../engine/typedHandlers.js";
import { newestFirstPerTeam } from "./teamResourceTable.js";

/**
 * A suppression's id, the same for an address of a team whichever way it got on the list: the id of its
 * stream (`suppression-<id>`) and of its row.
 */
export const suppressionIdOf = (teamId: string, email: string) => deterministicId("suppression", teamId, email.toLowerCase());

/**
 * How an erased address reads in an opened event (docs/privacy.md), and so in a row rebuilt from one: the
 * row a suppression of that address is listed under once it is erased.
 */
export const erasedSuppressionEmail = (emailHash: string) => erasedText(subjectTag(emailHash));

/** An address as the list keys it: bare and lower-cased; an erased one as its placeholder, whose tag is case-sensitive. */
const listedAddress = (recipient: string) => (isErasedText(recipient) ? recipient : bareAddresses([recipient])[0]!);

/** Puts an email's recipients on its team's list; an address already there keeps its first origin. */
function suppress(
  context: BatchContext,
  email: { teamId: string; emailId: string; recipients: string[]; recipientHashes?: string[] | undefined },
  origin: SuppressionOrigin,
  at: string,
) {
  email.recipients.forEach((recipient, index) => {
    const address = listedAddress(recipient);
    context.upsert("suppressions", {
      team_id: email.teamId,
      email: address,
      email_hash: email.recipientHashes?.[index] ?? null,
      id: suppressionIdOf(email.teamId, address),
      origin,
      source_id: email.emailId,
      created_at: at,
    });
  });
}

/**
 * The addresses a team no longer sends to. A hard (permanent) bounce puts its recipients here straight
 * from the delivery saga's `EmailBounced`, and a complaint the recipients it blames from `EmailComplained`
 * (sending again to someone who called it spam hurts every other email of the domain); manual additions and every removal come through the
 * suppression's own stream. Sends look addresses up here before they queue (a lookup, like an alias:
 * docs/architecture.md §1), lower-cased. The first cause stays the recorded origin and source until a removal.
 *
 * `email_hash` is the address's keyed hash, which the sealing store records in clear beside it
 * (docs/privacy.md). Once the address is erased its events open to `erased:<tag>`, so a rebuild lists it
 * under that placeholder, and the send path still finds it by the hash of the address it is asked about.
 * Rows from events recorded without the sealing store have no hash.
 */
export const suppressionsProjection = {
  name: "suppressions",
  version: 3,
  tables: {
    suppressions: {
      columns: {
        team_id: { type: "uuid" },
        email: { type: "text" },
        email_hash: { type: "text", nullable: true, merge: "keep" },
        id: { type: "uuid", merge: "keep" },
        origin: { type: "text", merge: "keep", ...holds<SuppressionOrigin>() },
        source_id: { type: "uuid", nullable: true, merge: "keep" },
        created_at: { type: "timestamptz", merge: "keep" },
      },
      primaryKey: ["team_id", "email"],
      indexes: { by_team: newestFirstPerTeam, by_id: "(id)", by_hash: "(team_id, email_hash)" },
    },
  },
  handlers: handlersOf<EmailEvent | SuppressionEvent>({
    EmailBounced(data, context) {
      if (data.bounce.type === "permanent") suppress(context, data, "bounce", data.bouncedAt);
    },
    EmailComplained(data, context) {
      suppress(context, data, "complaint", data.complainedAt);
    },
    SuppressionAdded(data, context) {
      context.upsert("suppressions", {
        team_id: data.teamId,
        email: data.email,
        email_hash: data.emailHash ?? null,
        id: data.suppressionId,
        origin: data.origin,
        source_id: data.sourceId,
        created_at: data.createdAt,
      });
    },
    SuppressionRemoved(data, context) {
      context.delete("suppressions", { team_id: data.teamId, email: data.email });
      // Removing an erased address names it again; the row it was listed under since reads as its placeholder.
      if (data.emailHash) context.delete("suppressions", { team_id: data.teamId, email: erasedSuppressionEmail(data.emailHash) });
    },
  }),
} satisfies Projection;
