import { describe, it } from "vitest";
import { given, now, teamId } from "../testing/scenario.js";
import { automationDecider, type AutomationCommand } from "./decider.js";
import type { AutomationDefinition, AutomationEvent } from "./events.js";

const automationId = "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a";
const later = "2026-11-23 11:00:00.000000+00";

const definition: AutomationDefinition = {
  name: "Welcome",
  status: "disabled",
  steps: [
    { key: "start", type: "trigger", config: { event_name: "user.signed_up" } },
    { key: "hello", type: "send_email", config: { template: { id: "t1" } } },
  ],
  connections: [{ from: "start", to: "hello", type: "default" }],
};
const create: AutomationCommand = { type: "CreateAutomation", automationId, teamId, definition, duplicatedFrom: null, now };
const created: AutomationEvent = {
  type: "AutomationCreated",
  data: { automationId, teamId, ...definition, duplicatedFrom: null, createdAt: now },
};
const update = (changes: Partial<AutomationDefinition>): AutomationCommand => ({ type: "UpdateAutomation", teamId, changes, now: later });

describe("automation decider", () => {
  it("creates a valid automation", () => given(automationDecider).when(create).then([created]));
  it("refuses an invalid graph with the graph's message", () =>
    given(automationDecider)
      .when({ ...create, definition: { ...definition, connections: [] } })
      .thenError("validation_error", /`hello` cannot be reached/));
  it("refuses an empty name", () =>
    given(automationDecider)
      .when({ ...create, definition: { ...definition, name: " " } })
      .thenError("validation_error", /`name`/));
  it("enabling keeps the version; changing the steps makes a new one", () => {
    given(automationDecider, [created])
      .when(update({ status: "enabled" }))
      .then([
        { type: "AutomationUpdated", data: { automationId, teamId, ...definition, status: "enabled", version: 1, updatedAt: later } },
      ]);
    const steps = [definition.steps[0]!, { key: "hello", type: "send_email" as const, config: { template: { id: "t2" } } }];
    given(automationDecider, [created])
      .when(update({ steps }))
      .then([{ type: "AutomationUpdated", data: { automationId, teamId, ...definition, steps, version: 2, updatedAt: later } }]);
  });
  it("an update that changes nothing appends nothing, whatever the order of config keys", () =>
    given(automationDecider, [created])
      .when(update({ connections: [{ type: "default", to: "hello", from: "start" }] }))
      .then([]));
  it("refuses an update that breaks the graph", () =>
    given(automationDecider, [created])
      .when(update({ steps: [definition.steps[1]!] }))
      .thenError("validation_error", /trigger/));
  it("another team cannot see it; a deleted one is gone", () => {
    given(automationDecider, [created])
      .when({ type: "DeleteAutomation", teamId: automationId, now })
      .thenError("not_found", "Automation not found");
    const deleted: AutomationEvent = { type: "AutomationDeleted", data: { automationId, teamId, deletedAt: now } };
    given(automationDecider, [created]).when({ type: "DeleteAutomation", teamId, now }).then([deleted]);
    given(automationDecider, [created, deleted])
      .when(update({ status: "enabled" }))
      .thenError("not_found");
  });
});
