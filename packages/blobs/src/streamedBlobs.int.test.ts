import { describe, expect, it } from "vitest";
import { testDatabaseForFile } from "@tidings/postgres/testing";
import { BlobNotFoundError, sha256Hex } from "./blobStore.js";
import { BlobTooLargeError, createStreamedBlobStore, type StreamedBlobTables } from "./streamedBlobs.js";
import { uploadChunksLeft } from "./testing/index.js";

async function* pieces(total: number, size: number, fill: (offset: number) => number) {
  for (let offset = 0; offset < total; offset += size) {
    const piece = Buffer.alloc(Math.min(size, total - offset));
    for (let i = 0; i < piece.length; i++) piece[i] = fill(offset + i);
    yield piece;
  }
}

async function collect(source: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of source) parts.push(part);
  return Buffer.concat(parts);
}

describe("streamed blob store", () => {
  const test = testDatabaseForFile();

  it("stores a stream of several chunks under its sha256 and streams it back intact", async () => {
    const store = createStreamedBlobStore(test.database);
    const total = 2.5 * 1024 * 1024;
    const put = await store.putStream(
      pieces(total, 64 * 1024, (i) => (i * 7) % 251),
      { maxBytes: total },
    );
    const back = await collect(store.readStream(put.sha256));
    expect(put).toEqual({ sha256: sha256Hex(back), size: total });
    expect(back.every((byte, i) => byte === (i * 7) % 251)).toBe(true);
  });

  it("keeps one copy of bytes uploaded twice", async () => {
    const store = createStreamedBlobStore(test.database);
    const a = await store.putStream(
      pieces(1000, 100, () => 1),
      { maxBytes: 1000 },
    );
    const b = await store.putStream(
      pieces(1000, 300, () => 1),
      { maxBytes: 1000 },
    );
    expect(b.sha256).toBe(a.sha256);
    const { rows } = await test.database
      .tables<StreamedBlobTables>()
      .selectFrom("blob_chunks")
      .select("seq")
      .where("blob_key", "=", a.sha256)
      .execute()
      .then((r) => ({ rows: r }));
    expect(rows).toHaveLength(1);
  });

  it("holds bytes uploaded twice until both puts are released, and deletes them with the last release", async () => {
    const store = createStreamedBlobStore(test.database);
    const put = () =>
      store.putStream(
        pieces(3000, 1000, (i) => i % 13),
        { maxBytes: 3000 },
      );
    const { sha256 } = await put();
    await put();
    await store.release(sha256);
    expect(await collect(store.readStream(sha256))).toHaveLength(3000);
    await store.release(sha256);
    await expect(collect(store.readStream(sha256))).rejects.toBeInstanceOf(BlobNotFoundError);
    const chunks = test.database.tables<StreamedBlobTables>().selectFrom("blob_chunks").select("seq").where("blob_key", "=", sha256);
    expect(await chunks.execute()).toEqual([]);
    // Put again after the last release, the bytes are stored anew.
    await put();
    expect(await collect(store.readStream(sha256))).toHaveLength(3000);
  });

  it("refuses a stream over the limit and keeps none of it", async () => {
    const store = createStreamedBlobStore(test.database);
    await expect(
      store.putStream(
        pieces(5000, 1000, () => 2),
        { maxBytes: 4999 },
      ),
    ).rejects.toBeInstanceOf(BlobTooLargeError);
    expect(await uploadChunksLeft(test.database)).toEqual([]);
  });

  it("throws BlobNotFoundError for an unknown sha256", async () => {
    await expect(collect(createStreamedBlobStore(test.database).readStream("0".repeat(64)))).rejects.toBeInstanceOf(BlobNotFoundError);
  });
});
