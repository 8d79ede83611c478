import { describe, expect, it } from "vitest";
import { checkGraph } from "./graph.js";
import type { AutomationConnection, AutomationGraph, AutomationStep } from "./steps.js";

const step = (key: string, type: AutomationStep["type"], config: Record<string, unknown>): AutomationStep => ({ key, type, config });
const link = (from: string, to: string, type: AutomationConnection["type"] = "default"): AutomationConnection => ({ from, to, type });
const trigger = step("start", "trigger", { event_name: "user.signed_up" });
const welcome = step("welcome", "send_email", { template: { id: "t1", variables: { NAME: { var: "contact.first_name" } } } });
const wait = step("wait", "delay", { duration: "2 seconds" });
const check = step("check", "condition", { type: "rule", field: "contact.plan", operator: "eq", value: "pro" });
const pro = step("pro", "send_email", { template: { id: "t2" } });
const free = step("free", "send_email", { template: { id: "t3" } });

const signup: AutomationGraph = {
  steps: [trigger, welcome, wait, check, pro, free],
  connections: [
    link("start", "welcome"),
    link("welcome", "wait"),
    link("wait", "check"),
    link("check", "pro", "condition_met"),
    link("check", "free", "condition_not_met"),
  ],
};
const message = (graph: AutomationGraph) => checkGraph(graph)?.message;

describe("automation graph rules", () => {
  it("accepts the sign-up flow", () => expect(checkGraph(signup)).toBeUndefined());
  it("needs exactly one trigger", () => {
    expect(message({ steps: [welcome], connections: [] })).toMatch(/exactly one `trigger` step; found 0/);
    expect(message({ steps: [trigger, { ...trigger, key: "again" }], connections: [] })).toMatch(/found 2/);
  });
  it("refuses a step key used twice", () =>
    expect(message({ steps: [trigger, welcome, { ...pro, key: "welcome" }], connections: [link("start", "welcome")] })).toMatch(
      /`welcome` is used twice/,
    ));
  it("refuses connections naming no step", () => {
    expect(message({ steps: [trigger], connections: [link("start", "nowhere")] })).toBe("Connection to `nowhere` names no step.");
    expect(message({ steps: [trigger], connections: [link("ghost", "start")] })).toBe("Connection from `ghost` names no step.");
  });
  it("refuses a step the trigger cannot reach", () =>
    expect(message({ steps: [trigger, welcome], connections: [] })).toMatch(/`welcome` cannot be reached/));
  it("refuses a cycle", () =>
    expect(
      message({
        steps: [trigger, welcome, wait],
        connections: [link("start", "welcome"), link("welcome", "wait"), link("wait", "welcome")],
      }),
    ).toMatch(/cycle through step `welcome`/));
  it("refuses a connection back into the trigger", () =>
    expect(message({ steps: [trigger, welcome], connections: [link("start", "welcome"), link("welcome", "start")] })).toMatch(
      /nothing may lead to the `trigger`/,
    ));
  it("refuses a connection type the step cannot take", () => {
    expect(message({ steps: [trigger, welcome], connections: [link("start", "welcome", "condition_met")] })).toMatch(
      /a `trigger` step takes `default`/,
    );
    expect(
      message({
        ...signup,
        connections: signup.connections.map((c) =>
          c.from === "check" && c.type === "condition_met" ? { ...c, type: "default" as const } : c,
        ),
      }),
    ).toMatch(/`condition_met` or `condition_not_met`/);
  });
  it("refuses two ways out of one type: a run follows one path", () =>
    expect(message({ steps: [trigger, pro, free], connections: [link("start", "pro"), link("start", "free")] })).toMatch(
      /two `default` connections/,
    ));
  it("refuses a timeout branch on a wait without a timeout", () => {
    const waitFor = step("w", "wait_for_event", { event_name: "user.activated" });
    expect(message({ steps: [trigger, waitFor, pro], connections: [link("start", "w"), link("w", "pro", "timeout")] })).toMatch(
      /has no `timeout`/,
    );
  });
  it("checks each config against its type, naming the step and the field", () => {
    const bad = (s: AutomationStep) => message({ steps: [trigger, s], connections: [link("start", s.key)] });
    expect(bad(step("d", "delay", { duration: "soon" }))).toMatch(/Step `d` \(delay\) has an invalid config: `duration`/);
    expect(bad(step("d", "delay", { duration: "400 days" }))).toMatch(/365 days/);
    expect(bad(step("e", "send_email", {}))).toMatch(/Step `e` \(send_email\).*`template`/);
    expect(bad(step("e", "send_email", { template: { id: "t" }, tempalte: 1 }))).toMatch(/Step `e`/);
    expect(bad(step("c", "condition", { type: "rule", field: "x", operator: "like" }))).toMatch(/Step `c` \(condition\)/);
    expect(bad(step("u", "contact_update", { first_name: 3 }))).toMatch(/Step `u` \(contact_update\)/);
    expect(bad(step("s", "add_to_segment", {}))).toMatch(/`segment_id`/);
    expect(bad(step("w", "wait_for_event", { event_name: "x", timeout: "forever" }))).toMatch(/`timeout`/);
    expect(message({ steps: [step("start", "trigger", {})], connections: [] })).toMatch(/`event_name`/);
  });
  it("accepts every step type with its config", () => {
    const all: AutomationStep[] = [
      trigger,
      step("w", "wait_for_event", {
        event_name: "user.activated",
        timeout: "1 hour",
        filter_rule: { type: "rule", field: "payload.ok", operator: "eq", value: true },
      }),
      step("u", "contact_update", { first_name: { var: "payload.name" }, unsubscribed: false, properties: { plan: "pro" } }),
      step("s", "add_to_segment", { segment_id: "seg" }),
      step("x", "contact_delete", {}),
      step("c", "condition", {
        type: "and",
        rules: [
          { type: "rule", field: "contact.email", operator: "ends_with", value: "@acme.test" },
          { type: "or", rules: [{ type: "rule", field: "payload.n", operator: "gte", value: 2 }] },
        ],
      }),
    ];
    expect(
      checkGraph({
        steps: all,
        connections: [
          link("start", "w"),
          link("w", "u", "event_received"),
          link("w", "c", "timeout"),
          link("u", "s"),
          link("c", "x", "condition_met"),
        ],
      }),
    ).toBeUndefined();
  });
});
