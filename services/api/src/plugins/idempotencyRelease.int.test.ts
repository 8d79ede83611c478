import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { newId } from "@tidings/core";
import { pruneIdempotencyKeys } from "./idempotencyStore.js";
import { idempotencyTestFile } from "../testing/idempotencyFile.js";

/** Idempotency-Key: when a key is released, expires or is taken over, so that a retry runs again. */

const file = idempotencyTestFile();
const { failNextFlaky, effects, post, keyRow } = file;

describe("Idempotency-Key released", () => {
  it("releases the key after a 5xx, so the client's retry with it runs", async () => {
    const key = newId();
    failNextFlaky();
    const failed = await post(file.app, "/flaky", { name: "retry" }, key);
    expect(failed.statusCode).toBe(500);
    const retried = await post(file.app, "/flaky", { name: "retry" }, key);
    expect(retried.statusCode).toBe(201);
    expect(retried.headers["idempotent-replayed"]).toBeUndefined();
    expect(await effects("flaky")).toBe(1);
  });

  it("releases the key once the database is back when the release itself failed, so the retry runs without waiting for the key to be abandoned", async () => {
    const key = newId();
    // The database refusing every change to the keys stands in for it being away for a moment.
    await file.test.database.exec(`
      CREATE TABLE IF NOT EXISTS key_outage (since timestamptz);
      CREATE OR REPLACE FUNCTION refuse_key_changes() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM key_outage) THEN RAISE EXCEPTION 'the database is away' USING ERRCODE = '57P03'; END IF;
        RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
      END $$;
      DROP TRIGGER IF EXISTS refuse_key_changes ON api_idempotency_keys;
      CREATE TRIGGER refuse_key_changes BEFORE UPDATE OR DELETE ON api_idempotency_keys FOR EACH ROW EXECUTE FUNCTION refuse_key_changes();
      INSERT INTO key_outage VALUES (now());`);
    try {
      failNextFlaky();
      expect((await post(file.app, "/flaky", { name: "outage" }, key)).statusCode).toBe(500);
      expect((await post(file.app, "/flaky", { name: "outage" }, key)).statusCode).toBe(409);
      await file.test.database.exec("DELETE FROM key_outage");
      let retried = await post(file.app, "/flaky", { name: "outage" }, key);
      for (const started = Date.now(); retried.statusCode === 409 && Date.now() - started < 10_000;) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        retried = await post(file.app, "/flaky", { name: "outage" }, key);
      }
      expect(retried.statusCode).toBe(201);
    } finally {
      await file.test.database.exec("DROP TRIGGER refuse_key_changes ON api_idempotency_keys; DELETE FROM key_outage");
    }
  });

  it("releases the key after a 4xx from the handler, so the corrected request can use it", async () => {
    const key = newId();
    const refused = await post(file.app, "/things", { name: "refused" }, key);
    expect(refused.statusCode).toBe(422);
    const corrected = await post(file.app, "/things", { name: "corrected" }, key);
    expect(corrected.statusCode).toBe(201);
  });

  it("does not take the key for a body the route's schema refuses", async () => {
    const key = newId();
    expect((await post(file.app, "/things", { name: 5 }, key)).statusCode).toBe(422);
    expect(await keyRow(key)).toBeUndefined();
    expect((await post(file.app, "/things", { name: "valid" }, key)).statusCode).toBe(201);
  });

  it("lets a key be used again once it has expired, and prunes expired keys", async () => {
    const key = newId();
    const first = await post(file.app, "/things", { name: "expiring" }, key);
    await sql`UPDATE api_idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = ${key}`.execute(file.test.database.db);
    const later = await post(file.app, "/things", { name: "expiring, another body" }, key);
    expect(later.statusCode).toBe(201);
    expect(later.json().id).not.toBe(first.json().id);

    await sql`UPDATE api_idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = ${key}`.execute(file.test.database.db);
    expect(await pruneIdempotencyKeys(file.test.database)).toBeGreaterThanOrEqual(1);
    expect(await keyRow(key)).toBeUndefined();
  });

  it("takes over a key whose request never answered (its process died) once it is abandoned", async () => {
    const key = newId();
    await sql`
      INSERT INTO api_idempotency_keys (team_id, method, path, key, request_hash, owner_request_id, reserved_at, expires_at)
      VALUES (${file.teamA}, 'POST', '/things', ${key}, 'whatever', ${newId()}, now() - interval '2 minutes', now() + interval '1 day')`.execute(
      file.test.database.db,
    );
    const res = await post(file.app, "/things", { name: "after a crash" }, key);
    expect(res.statusCode).toBe(201);
  });

  it("ignores the header on unauthenticated requests", async () => {
    const res = await file.app.inject({
      method: "POST",
      url: "/things",
      headers: { "content-type": "application/json", "idempotency-key": "" },
      payload: { name: "anonymous" },
    });
    expect(res.statusCode).toBe(201);
  });
});
