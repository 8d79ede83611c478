import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { loadConfig } from "@tidings/core";
import { wireError } from "../testing/jsonCalls.js";
import { apiTestFile } from "../testing/apiTestFile.js";
import { testApiSettings, type TestKey } from "../testing/testServices.js";
import { uploadChunksLeft } from "@tidings/blobs/testing";
import type { StreamedBlobTables } from "@tidings/blobs";

/** The seed's 200 MB, scaled down so the 413 is tested without moving 200 MB. */
const maxBytes = 3 * 1024 * 1024;
const file = apiTestFile("imports", loadConfig({ ...testApiSettings, CONTACT_IMPORT_MAX_BYTES: String(maxBytes) }));

function formOf(fields: Record<string, string | Blob>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  return form;
}

/** A multipart body as a browser or the SDK would send it. */
async function upload(fields: Record<string, string | Blob>, key: TestKey = file.admin) {
  const request = new Request("http://x", { method: "POST", body: formOf(fields) });
  const res = await file.app.inject({
    method: "POST",
    url: "/contacts/imports",
    headers: { ...key.headers, "content-type": request.headers.get("content-type")! },
    payload: Buffer.from(await request.arrayBuffer()),
  });
  return { status: res.statusCode, body: res.json() };
}

async function call(method: "GET" | "POST", url: string, key: TestKey = file.admin) {
  const res = await file.app.inject({ method, url, headers: key.headers });
  return { status: res.statusCode, body: res.json() };
}

const csv = (text: string) => new Blob([text], { type: "text/csv" });
const error = wireError;

describe("POST /contacts/imports", () => {
  it("stores the file and queues the import; GET shows it queued with zero counts", async () => {
    const created = await upload({ file: csv("email\na@example.com\n"), on_conflict: "skip" });
    expect(created).toEqual({ status: 201, body: { object: "contact_import", id: expect.any(String) } });
    expect((await call("GET", `/contacts/imports/${created.body.id}`)).body).toEqual({
      object: "contact_import",
      id: created.body.id,
      status: "queued",
      created_at: expect.stringMatching(/\+00$/),
      completed_at: null,
      counts: { total: 0, created: 0, updated: 0, skipped: 0, failed: 0 },
      errors: [],
    });
    expect(await call("GET", `/contacts/imports/${created.body.id}`, file.other)).toEqual(
      error(404, "not_found", "Contact import not found"),
    );
  });

  it("names the field of bad input", async () => {
    expect(await upload({ column_map: "{}" })).toEqual(error(422, "missing_required_field", "Missing `file` field."));
    expect(await upload({ file: csv("email\n"), column_map: "{not json" })).toEqual(
      error(422, "validation_error", "`column_map` must be JSON text."),
    );
    expect(await upload({ file: csv("email\n"), column_map: JSON.stringify({ properties: { age: { column: "" } } }) })).toEqual(
      error(422, "validation_error", /`column_map.properties.age.column`/),
    );
    expect(await upload({ file: csv("email\n"), column_map: JSON.stringify({ properties: { age: { column: "Age" } } }) })).toEqual(
      error(422, "validation_error", /`column_map.properties.age` is not a contact property/),
    );
    expect(await upload({ file: csv("email\n"), on_conflict: "replace" })).toEqual(error(422, "validation_error", /`on_conflict`/));
    expect(await upload({ file: csv("email\n"), segments: JSON.stringify([{ id: "nope" }]) })).toEqual(
      error(422, "validation_error", /`segments\[0\].id`/),
    );
    expect(await upload({ file: csv("email\n"), segments: JSON.stringify([{ id: "00000000-0000-4000-8000-000000000000" }]) })).toEqual(
      error(404, "not_found", "Audience not found"),
    );
    expect(
      await upload({
        file: csv("email\n"),
        topics: JSON.stringify([{ id: "00000000-0000-4000-8000-000000000000", subscription: "never" }]),
      }),
    ).toEqual(error(422, "validation_error", /`topics\[0\].subscription`/));
    // A refused import holds no file: the one all these sent was deleted with the last refusal.
    const files = file.testServices.test.database.tables<StreamedBlobTables>().selectFrom("streamed_blobs").select("sha256");
    expect(await files.where("sha256", "=", createHash("sha256").update("email\n").digest("hex")).execute()).toEqual([]);
  });

  it("answers a body longer than the route's limit with 413, whatever part holds the bytes", async () => {
    // The file is small; a field no import reads makes the body one byte over the limit of file plus 1 MB.
    const limit = maxBytes + 1024 * 1024;
    const small = { file: csv("email\nsomeone@example.com\n") };
    const overhead = (await new Request("http://x", { method: "POST", body: formOf({ ...small, padding: "" }) }).arrayBuffer()).byteLength;
    const res = await upload({ ...small, padding: "x".repeat(limit + 1 - overhead) });
    expect(res).toEqual(error(413, "validation_error", new RegExp(`limit of ${limit} bytes`)));
  });

  it("answers a file over the limit with 413 and keeps none of it", async () => {
    const line = "someone@example.com\n";
    const big = "email\n" + line.repeat(Math.ceil(maxBytes / line.length));
    expect(await upload({ file: csv(big) })).toEqual(error(413, "validation_error", /`file` must be at most 3145728 bytes/));
    expect(await uploadChunksLeft(file.testServices.test.database)).toEqual([]);
    expect((await upload({ file: csv(big.slice(0, maxBytes)) })).status).toBe(201);
  });

  it("answers a JSON body with 415", async () => {
    const res = await file.app.inject({
      method: "POST",
      url: "/contacts/imports",
      headers: { ...file.admin.headers, "content-type": "application/json" },
      payload: "{}",
    });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toMatchObject({ name: "validation_error", message: expect.stringContaining("multipart/form-data") });
  });
});

describe("GET /contacts/imports", () => {
  it("pages by 10 by default, filters by status, and refuses after with before", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 11; i++) ids.push((await upload({ file: csv(`email\nlist${i}@example.com\n`) }, file.other)).body.id);
    const first = await call("GET", "/contacts/imports", file.other);
    expect(first.body.has_more).toBe(true);
    expect(first.body.data.map((i: { id: string }) => i.id)).toEqual(ids.slice(1).reverse());
    const rest = await call("GET", `/contacts/imports?after=${ids[1]}`, file.other);
    expect(rest.body).toMatchObject({ has_more: false, data: [{ id: ids[0] }] });
    const before = await call("GET", `/contacts/imports?limit=2&before=${ids[0]}`, file.other);
    expect(before.body.data.map((i: { id: string }) => i.id)).toEqual([ids[2], ids[1]]);
    expect((await call("GET", "/contacts/imports?status=queued&limit=100", file.other)).body.data).toHaveLength(11);
    expect((await call("GET", "/contacts/imports?status=completed", file.other)).body.data).toEqual([]);
    expect(await call("GET", `/contacts/imports?after=${ids[0]}&before=${ids[1]}`, file.other)).toEqual(
      error(422, "validation_error", /`after` and `before`/),
    );
    expect(await call("GET", "/contacts/imports?limit=101", file.other)).toEqual(error(422, "validation_error", /`limit`/));
    expect(await call("GET", "/contacts/imports?status=done", file.other)).toEqual(error(422, "validation_error", /`status`/));
  });
});
