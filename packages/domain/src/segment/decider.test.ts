import { describe, it } from "vitest";
import { given, now, teamId } from "../testing/scenario.js";
import { segmentDecider } from "./decider.js";
import type { SegmentEvent } from "./events.js";

const segmentId = "00000000-0000-4000-8000-000000000002";
const created: SegmentEvent = { type: "SegmentCreated", data: { segmentId, teamId, name: "Customers", createdAt: now } };

describe("segment decider", () => {
  it("creates a named segment", () => {
    given(segmentDecider).when({ type: "CreateSegment", segmentId, teamId, name: "Customers", now }).then([created]);
  });
  it("refuses an empty name and one over 255 characters", () => {
    given(segmentDecider)
      .when({ type: "CreateSegment", segmentId, teamId, name: " ", now })
      .thenError("missing_required_field", /`name`/);
    given(segmentDecider)
      .when({ type: "CreateSegment", segmentId, teamId, name: "n".repeat(256), now })
      .thenError("validation_error", /`name`/);
    given(segmentDecider, [created])
      .when({ type: "RenameSegment", teamId, name: "", now })
      .thenError("missing_required_field", /`name`/);
  });
  it("renames, and records nothing for the same name", () => {
    given(segmentDecider, [created])
      .when({ type: "RenameSegment", teamId, name: "Buyers", now })
      .then([{ type: "SegmentRenamed", data: { segmentId, name: "Buyers", renamedAt: now } }]);
    given(segmentDecider, [created]).when({ type: "RenameSegment", teamId, name: "Customers", now }).then([]);
  });
  it("says Audience not found for another team's segment and for a deleted one", () => {
    const deleted: SegmentEvent = { type: "SegmentDeleted", data: { segmentId, teamId, deletedAt: now } };
    given(segmentDecider, [created]).when({ type: "DeleteSegment", teamId, now }).then([deleted]);
    given(segmentDecider, [created, deleted])
      .when({ type: "RenameSegment", teamId, name: "x", now })
      .thenError("not_found", "Audience not found");
    given(segmentDecider, [created]).when({ type: "DeleteSegment", teamId: segmentId, now }).thenError("not_found");
  });
});
