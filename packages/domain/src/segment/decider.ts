import { DomainError, type Decider } from "../decider.js";
import { createdBefore, isLiveFor, markDeleted, noResource, type LiveResource, type ResourceState } from "../teamResource.js";
import type { SegmentEvent } from "./events.js";

export const segmentStream = (segmentId: string) => `segment-${segmentId}`;
export const SEGMENT_NAME_MAX = 255;

export type SegmentCommand =
  | { type: "CreateSegment"; segmentId: string; teamId: string; name: string; now: string }
  | { type: "RenameSegment"; teamId: string; name: string; now: string }
  | { type: "DeleteSegment"; teamId: string; now: string };

interface SegmentRecord {
  segmentId: string;
  teamId: string;
  name: string;
}
export type SegmentState = ResourceState<SegmentRecord>;
export type LiveSegment = LiveResource<SegmentRecord>;

/** docs/wire-compatibility.md §2.4: segments (the former audiences) say "Audience not found". */
const notFound = () => new DomainError("not_found", "Audience not found");

function checkName(name: string): DomainError | undefined {
  if (name.trim() === "") return new DomainError("missing_required_field", "Missing `name` field.");
  if (name.length > SEGMENT_NAME_MAX)
    return new DomainError("validation_error", `\`name\` must be at most ${SEGMENT_NAME_MAX} characters.`);
  return undefined;
}

export const segmentDecider: Decider<SegmentCommand, SegmentEvent, SegmentState> = {
  initialState: noResource,
  evolve(state, event) {
    switch (event.type) {
      case "SegmentCreated":
        return { status: "active", segmentId: event.data.segmentId, teamId: event.data.teamId, name: event.data.name };
      case "SegmentRenamed":
        return state.status === "none" ? state : { ...state, name: event.data.name };
      case "SegmentDeleted":
        return markDeleted(state);
    }
  },
  decide(command, state) {
    if (command.type === "CreateSegment") {
      if (state.status !== "none") return createdBefore(state.teamId === command.teamId && state.name === command.name, "Segment");
      const invalid = checkName(command.name);
      if (invalid) return invalid;
      return [
        {
          type: "SegmentCreated",
          data: { segmentId: command.segmentId, teamId: command.teamId, name: command.name, createdAt: command.now },
        },
      ];
    }
    if (!isLiveFor(state, command.teamId)) return notFound();
    switch (command.type) {
      case "RenameSegment": {
        const invalid = checkName(command.name);
        if (invalid) return invalid;
        if (command.name === state.name) return [];
        return [{ type: "SegmentRenamed", data: { segmentId: state.segmentId, name: command.name, renamedAt: command.now } }];
      }
      case "DeleteSegment":
        return [{ type: "SegmentDeleted", data: { segmentId: state.segmentId, teamId: state.teamId, deletedAt: command.now } }];
    }
  },
};
