import { bareAddresses, type EmailEvent } from "@tidings/domain";
import type { RecordedEvent } from "@tidings/eventstore";
import type { Projection } from "./projection.js";

type Bounced = Extract<EmailEvent, { type: "EmailBounced" }>["data"];

/**
 * The addresses a team no longer sends to. Until the audience work brings manual suppressions and
 * complaints, a hard (permanent) bounce is the only way in. Sends look addresses up here before they
 * queue (a lookup, like an alias: DESIGN §1), lower-cased. The first bounce stays the recorded source.
 */
export const suppressionsProjection: Projection = {
  name: "suppressions",
  version: 1,
  tables: {
    suppressions: {
      columns: {
        team_id: { type: "uuid" },
        email: { type: "text" },
        origin: { type: "text" },
        source_id: { type: "uuid", nullable: true, merge: "keep" },
        created_at: { type: "timestamptz", merge: "keep" },
      },
      primaryKey: ["team_id", "email"],
    },
  },
  handlers: {
    EmailBounced(event: RecordedEvent, context) {
      const data = event.data as Bounced;
      if (data.bounce.type !== "permanent") return;
      for (const address of bareAddresses(data.recipients))
        context.upsert("suppressions", {
          team_id: data.teamId,
          email: address,
          origin: "bounce",
          source_id: data.emailId,
          created_at: data.bouncedAt,
        });
    },
  },
};
