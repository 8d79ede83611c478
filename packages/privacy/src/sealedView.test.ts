import { describe, expect, it } from "vitest";
import { groupsField } from "./envelope.js";
import { sealedView } from "./sealedView.js";

const stored = () => ({
  emailId: "e-1",
  status: "delivered",
  tags: [{ name: "kind", value: "order" }],
  recipients: [{ $sealed: "0.0.text.ab12" }],
  bounce: { kind: "hard", message: { $sealed: "1.0.text.cd34" } },
  [groupsField]: [{ k: "s:key", v: "…" }],
});
const openedData = {
  emailId: "e-1",
  status: "delivered",
  tags: [{ name: "kind", value: "order" }],
  recipients: ["a@example.com"],
  bounce: { kind: "hard", message: "550 a@example.com unknown" },
};

function counted() {
  const data = stored();
  let opens = 0;
  const view = sealedView(data, () => (opens++, structuredClone(openedData)));
  return { data, view, opens: () => opens };
}

describe("a sealed event's data as its reader sees it", () => {
  it("given only values in clear read, then nothing is opened and the groups are not shown", () => {
    const { view, opens } = counted();
    expect([view.emailId, view.status, view.tags]).toEqual(["e-1", "delivered", [{ name: "kind", value: "order" }]]);
    expect(view[groupsField]).toBeUndefined();
    expect(groupsField in view).toBe(false);
    expect(Object.keys(view)).toEqual(["emailId", "status", "tags", "recipients", "bounce"]);
    expect(opens()).toBe(0);
  });

  it("given a sealed value read, at the top or deeper in an object, then the event is opened once and every later read answers from it", () => {
    const { view, opens } = counted();
    expect((view.bounce as { message: string }).message).toBe("550 a@example.com unknown");
    expect(view.recipients).toEqual(["a@example.com"]);
    expect(view.recipients).toBe(view.recipients);
    expect(opens()).toBe(1);
  });

  it("given the whole data copied, compared or written as JSON, then it is the opened data, without the groups", () => {
    const { view } = counted();
    expect({ ...view }).toEqual(openedData);
    expect(view).toEqual(openedData);
    expect(JSON.parse(JSON.stringify(view))).toEqual(openedData);
    expect(Object.entries(view)).toEqual(Object.entries(openedData));
  });

  it("given a write, then the opened copy takes it and the stored data, which other readers share, is left as it was", () => {
    const { data, view } = counted();
    const before = JSON.stringify(data);
    view.status = "bounced";
    delete view.tags;
    expect(view.status).toBe("bounced");
    expect("tags" in view).toBe(false);
    expect(JSON.stringify(data)).toBe(before);
  });
});
