import type { SegmentEvent } from "@tidings/domain";
import type { Projection } from "../engine/projection.js";
import { eventDataOf } from "../engine/eventData.js";
import { teamResourceTable } from "./teamResourceTable.js";

const dataOf = eventDataOf<SegmentEvent>();

/** Segments (reference §6.7). Memberships are in `contact_segments` (the contacts projection). */
export const segmentsProjection = {
  name: "segments",
  version: 1,
  tables: {
    segments: teamResourceTable({
      name: { type: "text" },
      created_at: { type: "timestamptz" },
    }),
  },
  handlers: {
    SegmentCreated(event, context) {
      const data = dataOf<"SegmentCreated">(event);
      context.upsert("segments", { id: data.segmentId, team_id: data.teamId, name: data.name, created_at: data.createdAt });
    },
    SegmentRenamed(event, context) {
      const data = dataOf<"SegmentRenamed">(event);
      context.update("segments", { id: data.segmentId }, { name: data.name });
    },
    SegmentDeleted(event, context) {
      context.delete("segments", { id: dataOf<"SegmentDeleted">(event).segmentId });
    },
  },
} satisfies Projection;
