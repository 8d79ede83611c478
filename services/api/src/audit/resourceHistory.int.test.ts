import { describe, expect, it } from "vitest";
import { apiTestFile } from "../testing/apiTestFile.js";
import { createTeamResources } from "../testing/teamResources.js";
import { resourceHistory, stateAt, upTo } from "./resourceHistory.js";
import { resourceReads } from "./resourceReads.js";

const file = apiTestFile("history");

/** Each replayed category with the route prefix its GET lives under. */
const categories = [
  ["template", "/templates"],
  ["email", "/emails"],
  ["contact", "/contacts"],
  ["domain", "/domains"],
  ["broadcast", "/broadcasts"],
  ["webhook", "/webhooks"],
  ["segment", "/segments"],
  ["topic", "/topics"],
] as const;

const replay = async (stream: string, at?: { revision: bigint }) => {
  const { store, services } = file.testServices;
  const history = await resourceHistory(store, services.database, stream);
  const reads = resourceReads(new URL(services.config.PUBLIC_URL).hostname);
  return stateAt(services.database, reads, history, at ? upTo(history, at) : history.events);
};

describe("a resource replayed from its events", () => {
  it("shows every replayed kind of resource with the fields its GET shows", async () => {
    const ids = await createTeamResources(file.app, file.admin, "replayed", file.admin.id);
    expect(Object.keys(resourceReads("example.test")).sort()).toEqual(categories.map(([category]) => category).sort());
    for (const [category, prefix] of categories) {
      const shown = await file.call("GET", `${prefix}/${ids[prefix]!}`);
      expect(shown.status).toBe(200);
      // The audit leaves the webhook's signing secret out.
      const { signing_secret: _secret, ...expected } = shown.body as Record<string, unknown>;
      expect({ category, state: await replay(`${category}-${ids[prefix]!}`) }).toEqual({ category, state: expected });
    }
  });

  it("shows the resource as it was at an earlier revision, and nothing once deleted", async () => {
    const created = await file.call("POST", "/topics", { name: "First name", default_subscription: "opt_in" });
    const id = (created.body as { id: string }).id;
    const first = (await file.call("GET", `/topics/${id}`)).body;
    expect((await file.call("PATCH", `/topics/${id}`, { name: "Second name" })).status).toBe(200);
    expect(await replay(`topic-${id}`, { revision: 0n })).toEqual(first);
    expect(await replay(`topic-${id}`)).toMatchObject({ name: "Second name" });
    expect((await file.call("DELETE", `/topics/${id}`)).status).toBe(200);
    expect(await replay(`topic-${id}`)).toBeUndefined();
  });

  it("leaves the live read models as they were", async () => {
    const created = await file.call("POST", "/topics", { name: "Untouched", default_subscription: "opt_out" });
    const id = (created.body as { id: string }).id;
    const before = await file.call("GET", "/topics?limit=100");
    await replay(`topic-${id}`, { revision: 0n });
    expect(await file.call("GET", "/topics?limit=100")).toEqual(before);
  });
});
