import { describe, expect, it } from "vitest";
import { given, itRefuses, now, teamId } from "../testing/scenario.js";
import { effectiveSubscription, topicDecider, type TopicFields } from "./decider.js";
import type { TopicEvent } from "./events.js";

const topicId = "00000000-0000-4000-8000-000000000002";
const fields: TopicFields = { name: "Product news", description: null, visibility: "private" };
const created: TopicEvent = { type: "TopicCreated", data: { topicId, teamId, ...fields, defaultSubscription: "opt_in", createdAt: now } };
const create = (overrides: Partial<TopicFields> = {}) => ({
  type: "CreateTopic" as const,
  topicId,
  teamId,
  fields: { ...fields, ...overrides },
  defaultSubscription: "opt_in" as const,
  now,
});

describe("topic decider", () => {
  it("creates a topic with its default subscription", () => {
    given(topicDecider).when(create()).then([created]);
  });
  itRefuses(topicDecider, [
    ["refuses an empty name", create({ name: "" }), "missing_required_field", /`name`/],
    ["refuses a name over 50 characters", create({ name: "n".repeat(51) }), "validation_error", /`name`/],
    ["refuses a description over 200 characters", create({ description: "d".repeat(201) }), "validation_error", /`description`/],
  ]);
  itRefuses(
    topicDecider,
    [
      [
        "refuses a rename to over 50 characters",
        { type: "UpdateTopic", teamId, changes: { name: "n".repeat(51) }, now },
        "validation_error",
        /`name`/,
      ],
    ],
    [created],
  );
  it("updates name and description, and records nothing when they are unchanged", () => {
    given(topicDecider, [created])
      .when({ type: "UpdateTopic", teamId, changes: { description: "Monthly" }, now })
      .then([
        { type: "TopicUpdated", data: { topicId, name: "Product news", description: "Monthly", visibility: "private", updatedAt: now } },
      ]);
    given(topicDecider, [created])
      .when({ type: "UpdateTopic", teamId, changes: { name: "Product news" }, now })
      .then([]);
  });
  it("does not find another team's topic nor a deleted one", () => {
    const deleted: TopicEvent = { type: "TopicDeleted", data: { topicId, teamId, deletedAt: now } };
    given(topicDecider, [created]).when({ type: "DeleteTopic", teamId, now }).then([deleted]);
    given(topicDecider, [created, deleted]).when({ type: "DeleteTopic", teamId, now }).thenError("not_found", "Topic not found");
    given(topicDecider, [created]).when({ type: "UpdateTopic", teamId: topicId, changes: {}, now }).thenError("not_found");
  });
  it("takes the contact's choice, else the topic's default", () => {
    expect(effectiveSubscription(undefined, { defaultSubscription: "opt_in" })).toBe("opt_in");
    expect(effectiveSubscription("opt_out", { defaultSubscription: "opt_in" })).toBe("opt_out");
  });
});
