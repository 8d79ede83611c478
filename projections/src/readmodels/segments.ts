import type { SegmentEvent } from "@tidings/domain";
import type { Projection } from "../engine/projection.js";
import { handlersOf } from "../engine/typedHandlers.js";
import { teamResourceTable } from "./teamResourceTable.js";

/** Segments (docs/wire-compatibility.md §6.7). Memberships are in `contact_segments` (the contacts projection). */
export const segmentsProjection = {
  name: "segments",
  version: 1,
  tables: {
    segments: teamResourceTable({
      columns: {
        name: { type: "text" },
        created_at: { type: "timestamptz" },
      },
    }),
  },
  handlers: handlersOf<SegmentEvent>({
    SegmentCreated(data, context) {
      context.upsert("segments", { id: data.segmentId, team_id: data.teamId, name: data.name, created_at: data.createdAt });
    },
    SegmentRenamed(data, context) {
      context.update("segments", { id: data.segmentId }, { name: data.name });
    },
    SegmentDeleted(data, context) {
      context.delete("segments", { id: data.segmentId });
    },
  }),
} satisfies Projection;
