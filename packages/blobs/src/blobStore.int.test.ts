import { describe, expect, it } from "vitest";
import { testDatabaseForFile } from "@tidings/postgres/testing";
import { BlobNotFoundError, createBlobStore, sha256Hex, type BlobTables } from "./blobStore.js";

describe("blob store", () => {
  const test = testDatabaseForFile();

  it("returns the bytes it stored under their sha256", async () => {
    const store = createBlobStore(test.database);
    const bytes = Buffer.from([0, 1, 2, 255, 254, 10, 13]);
    const sha = await store.put(bytes);
    expect(sha).toBe(sha256Hex(bytes));
    expect(await store.get(sha)).toEqual(bytes);
  });

  it("stores the same bytes once, from several stores at once", async () => {
    const bytes = Buffer.from("the same attachment");
    const shas = await Promise.all([createBlobStore(test.database), createBlobStore(test.database)].map((s) => s.put(bytes)));
    expect(new Set(shas).size).toBe(1);
    const rows = await test.database.tables<BlobTables>().selectFrom("blobs").select("sha256").where("sha256", "=", shas[0]!).execute();
    expect(rows).toHaveLength(1);
  });

  it("keeps a few megabytes intact", async () => {
    const store = createBlobStore(test.database);
    const bytes = Buffer.alloc(3 * 1024 * 1024, 7);
    bytes[12345] = 1;
    expect((await store.get(await store.put(bytes))).equals(bytes)).toBe(true);
  });

  it("throws BlobNotFoundError for an unknown sha256", async () => {
    await expect(createBlobStore(test.database).get("0".repeat(64))).rejects.toBeInstanceOf(BlobNotFoundError);
  });
});
