import { formatPosition, streamCategory } from "@tidings/eventstore";
import type { Projection } from "../engine/projection.js";

/**
 * The admin catalogue of the event store: every stream, every category, every event type, with counts.
 * Built from the recorded events alone (ids, revisions, positions, store timestamps), so a rebuild
 * reproduces it exactly and its checksum matches the live one.
 */
export const streamsProjection = {
  name: "streams",
  version: 1,
  tables: {
    streams: {
      columns: {
        stream_id: { type: "text" },
        category: { type: "text" },
        last_revision: { type: "bigint", merge: "max" },
        event_count: { type: "bigint", merge: "add" },
        first_event_at: { type: "timestamptz", merge: "keep" },
        last_event_at: { type: "timestamptz", merge: "max" },
      },
      primaryKey: ["stream_id"],
      indexes: { category: "(category, stream_id)" },
    },
    stream_categories: {
      columns: {
        category: { type: "text" },
        stream_count: { type: "bigint", merge: "add" },
        event_count: { type: "bigint", merge: "add" },
      },
      primaryKey: ["category"],
    },
    event_types: {
      columns: {
        type: { type: "text" },
        event_count: { type: "bigint", merge: "add" },
        last_position: { type: "text" },
      },
      primaryKey: ["type"],
    },
  },
  anyTypeReadsData: false,
  handlers: {
    "*"(event, context) {
      const category = streamCategory(event.streamId);
      context.upsert("streams", {
        stream_id: event.streamId,
        category,
        last_revision: event.revision,
        event_count: 1,
        first_event_at: event.createdAt,
        last_event_at: event.createdAt,
      });
      context.upsert("stream_categories", { category, stream_count: event.revision === 0n ? 1 : 0, event_count: 1 });
      context.upsert("event_types", { type: event.type, event_count: 1, last_position: formatPosition(event.position) });
    },
  },
} satisfies Projection;
