import { describe, expect, it } from "vitest";
import { resolveVariables, type ActiveRun, type LiveContact } from "@tidings/domain";
import { stepContext, templateValues } from "./stepContext.js";

const run = {
  trigger: { receivedEventId: "e1", name: "user.signed_up", contactId: "c1", payload: { plan: "pro", seats: 3 } },
  outputs: { wait: { event_id: "e2", payload: { coupon: "X1" } } },
} as unknown as ActiveRun;
const contact = {
  contactId: "c1",
  email: "ada@example.test",
  firstName: "Ada",
  lastName: null,
  unsubscribed: false,
  properties: { company: "Acme" },
} as unknown as LiveContact;

describe("what a step's {var} references read", () => {
  it("reads the contact, its properties, the trigger's payload and earlier steps' outputs", () => {
    const context = stepContext(run, contact);
    expect(
      resolveVariables(
        {
          a: { var: "contact.first_name" },
          b: { var: "contact.company" },
          c: { var: "payload.plan" },
          d: { var: "steps.wait.payload.coupon" },
          e: { var: "event.name" },
        },
        context,
      ),
    ).toEqual({
      a: "Ada",
      b: "Acme",
      c: "pro",
      d: "X1",
      e: "user.signed_up",
    });
  });
  it("gives a condition on a contact that is gone nothing to match", () => expect(stepContext(run, undefined).contact).toEqual({}));
});

describe("template values from resolved variables", () => {
  it("keeps strings and numbers, spells booleans, serialises objects and leaves out what did not resolve", () =>
    expect(templateValues({ s: "x", n: 2, b: true, o: { k: 1 }, missing: undefined, nothing: null })).toEqual({
      s: "x",
      n: 2,
      b: "true",
      o: '{"k":1}',
    }));
});
