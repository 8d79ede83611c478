import { describe, expect, it } from "vitest";
import { newId } from "@tidings/core";
import { idempotencyTestFile } from "../testing/idempotencyFile.js";

/**
 * Idempotency-Key: one effect per key, the first answer replayed, and a key's scope (the release of a key:
 * idempotencyRelease.int.test.ts).
 */

const file = idempotencyTestFile();
const { appOn, holdThings, effects, post, waitForReservation } = file;

describe("Idempotency-Key", () => {
  it("gives 50 concurrent requests with one key exactly one effect, across two api instances", async () => {
    const other = appOn(file.second);
    const key = newId();
    const before = await effects("thing");
    const open = holdThings();
    const requests = Array.from({ length: 50 }, (_, i) => post(i % 2 === 0 ? file.app : other, "/things", { name: "concurrent" }, key));
    setTimeout(() => open(), 50);
    const responses = await Promise.all(requests);

    expect(await effects("thing")).toBe(before + 1);
    const successes = responses.filter((r) => r.statusCode === 201);
    const conflicts = responses.filter((r) => r.statusCode === 409);
    expect(successes.length + conflicts.length).toBe(50);
    expect(successes.length).toBeGreaterThanOrEqual(1);
    expect(new Set(successes.map((r) => r.json().id)).size).toBe(1);
    for (const conflict of conflicts) expect(conflict.json()).toMatchObject({ statusCode: 409, name: "concurrent_idempotent_requests" });

    const replay = await post(other, "/things", { name: "concurrent" }, key);
    expect(replay.statusCode).toBe(201);
    expect(replay.json().id).toBe(successes[0]!.json().id);
    expect(await effects("thing")).toBe(before + 1);
  });

  it("replays the first answer, status and body, for the same key and body, without running again", async () => {
    const key = newId();
    const first = await post(file.app, "/things", { name: "replayed", tags: ["a", "b"] }, key);
    expect(first.statusCode).toBe(201);
    const count = await effects("thing");

    const again = await post(file.app, "/things", { tags: ["a", "b"], name: "replayed" }, key);
    expect(again.statusCode).toBe(201);
    expect(again.body).toBe(first.body);
    expect(again.headers["content-type"]).toMatch(/^application\/json/);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(first.headers["idempotent-replayed"]).toBeUndefined();
    expect(await effects("thing")).toBe(count);
  });

  it("answers 409 invalid_idempotent_request when the key comes back with another body", async () => {
    const key = newId();
    expect((await post(file.app, "/things", { name: "one" }, key)).statusCode).toBe(201);
    const count = await effects("thing");
    const other = await post(file.app, "/things", { name: "two" }, key);
    expect(other.statusCode).toBe(409);
    expect(other.json()).toEqual({
      statusCode: 409,
      name: "invalid_idempotent_request",
      message: expect.stringContaining("`Idempotency-Key`"),
    });
    expect(await effects("thing")).toBe(count);
  });

  it("answers 409 concurrent_idempotent_requests while the first request is still running, then replays it", async () => {
    const key = newId();
    const open = holdThings();
    const first = post(file.app, "/things", { name: "slow" }, key);
    await waitForReservation(key);
    const during = await post(file.app, "/things", { name: "slow" }, key);
    expect(during.statusCode).toBe(409);
    expect(during.json()).toMatchObject({ name: "concurrent_idempotent_requests" });
    open();
    expect((await first).statusCode).toBe(201);
    const after = await post(file.app, "/things", { name: "slow" }, key);
    expect(after.json().id).toBe((await first).json().id);
  });

  it.each([
    ["empty", ""],
    ["257 characters long", "k".repeat(257)],
  ])("refuses a key that is %s with 400 invalid_idempotency_key, running nothing", async (_, key) => {
    const count = await effects();
    const res = await post(file.app, "/things", { name: "bad key" }, key);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      statusCode: 400,
      name: "invalid_idempotency_key",
      message: "The `Idempotency-Key` header must be between 1 and 256 characters.",
    });
    expect(await effects()).toBe(count);
  });

  it("takes a key of 256 characters", async () => {
    const key = "k".repeat(255) + "!";
    expect((await post(file.app, "/things", { name: "long key" }, key)).statusCode).toBe(201);
    expect((await post(file.app, "/things", { name: "long key" }, key)).headers["idempotent-replayed"]).toBe("true");
  });

  it("scopes a key to the team and to the endpoint", async () => {
    const key = newId();
    const count = await effects();
    const a = await post(file.app, "/things", { name: "scoped" }, key, file.teamA);
    const b = await post(file.app, "/things", { name: "scoped" }, key, file.teamB);
    const send = await post(file.app, "/sends", { to: "scoped" }, key, file.teamA);
    expect([a.statusCode, b.statusCode, send.statusCode]).toEqual([201, 201, 200]);
    expect(a.json().id).not.toBe(b.json().id);
    expect(await effects()).toBe(count + 3);
  });

  it("is honoured by a 200 route that opts in, and ignored by a POST that neither creates nor opts in", async () => {
    const key = newId();
    const send1 = await post(file.app, "/sends", { to: "a@example.com" }, key);
    const send2 = await post(file.app, "/sends", { to: "a@example.com" }, key);
    expect(send2.json().id).toBe(send1.json().id);

    const actions = await effects("action");
    await post(file.app, "/actions", { name: "x" }, key);
    await post(file.app, "/actions", { name: "x" }, key);
    expect(await effects("action")).toBe(actions + 2);
  });
});
