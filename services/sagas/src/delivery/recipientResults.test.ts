import { describe, expect, it } from "vitest";
import { recipientResults } from "./recipientResults.js";

describe("recipient results of a transport outcome", () => {
  it("takes each recipient's own outcome, in envelope order", () =>
    expect(
      recipientResults(
        {
          kind: "deferred",
          code: 451,
          response: "451 later",
          perRecipient: [
            { recipient: "b@x.test", kind: "deferred", code: 451, response: "451 later" },
            { recipient: "a@x.test", kind: "delivered", code: 250, response: "250 ok" },
          ],
        },
        ["a@x.test", "b@x.test"],
      ),
    ).toEqual([
      { recipient: "a@x.test", kind: "delivered", code: 250, response: "250 ok" },
      { recipient: "b@x.test", kind: "deferred", code: 451, response: "451 later" },
    ]));

  it("gives the overall outcome to a recipient the transport did not name, so none is left without a result", () =>
    expect(recipientResults({ kind: "failed", response: "TLS required" }, ["a@x.test"])).toEqual([
      { recipient: "a@x.test", kind: "failed", code: null, response: "TLS required" },
    ]));
});
