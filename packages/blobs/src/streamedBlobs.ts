import { createHash, randomUUID } from "node:crypto";
import { sql } from "kysely";
import { migrate, type Database, type Migration } from "@tidings/postgres";
import { BlobNotFoundError } from "./blobStore.js";

/**
 * Blobs too large to hold in memory (import files, up to 200 MB): written and read as a sequence of
 * chunks, so neither side ever has more than a chunk at hand. Addressed by sha256 like every blob; while
 * an upload runs its chunks sit under a provisional key, renamed to the sha256 once it is known.
 */
/** The tables `streamedBlobMigrations` creates, for `database.tables<StreamedBlobTables>()`. */
export interface StreamedBlobTables {
  blob_chunks: { blob_key: string; seq: number; bytes: Buffer };
  streamed_blobs: { sha256: string; size: string | number; chunks: number; created_at: Date; holds: number };
}

export interface StreamedBlobStore {
  /**
   * Stores the bytes of `source`; refuses past `maxBytes` with BlobTooLargeError, keeping nothing. Each
   * call holds the blob once more, the same bytes uploaded again included, until `release`.
   */
  putStream(source: AsyncIterable<Uint8Array>, options: { maxBytes: number }): Promise<{ sha256: string; size: number }>;
  /** The bytes stored under `sha256`, chunk by chunk; BlobNotFoundError when there are none. */
  readStream(sha256: string): AsyncIterable<Buffer>;
  /** Lets go of one hold taken by `putStream`; the blob is deleted with the last. Call once per put. */
  release(sha256: string): Promise<void>;
}

export class BlobTooLargeError extends Error {
  override readonly name = "BlobTooLargeError";
  constructor(readonly maxBytes: number) {
    super(`blob over ${maxBytes} bytes`);
  }
}

const migrations: Migration[] = [
  {
    id: "0001_blob_chunks",
    sql: `CREATE TABLE IF NOT EXISTS blob_chunks (
      blob_key text NOT NULL,
      seq integer NOT NULL,
      bytes bytea NOT NULL,
      PRIMARY KEY (blob_key, seq)
    );
    CREATE TABLE IF NOT EXISTS streamed_blobs (
      sha256 text PRIMARY KEY,
      size bigint NOT NULL,
      chunks integer NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );`,
  },
  // Import files are deleted once their import ends (docs/operations.md, "Erasure"): the same bytes may
  // have been uploaded for several imports, so a blob counts its holders. One there before holds once.
  { id: "0002_streamed_blob_holds", sql: "ALTER TABLE streamed_blobs ADD COLUMN holds integer NOT NULL DEFAULT 1;" },
];

/** About 1 MiB a row: few round trips, and little memory on either side. */
const CHUNK_BYTES = 1024 * 1024;

export function createStreamedBlobStore(database: Database): StreamedBlobStore {
  let ready: Promise<unknown> | undefined;
  const migrated = () =>
    (ready ??= migrate(database, "blob_chunks", migrations).catch((error) => {
      ready = undefined;
      throw error;
    }));
  // As in createBlobStore: PGlite moves bytea fastest as base64 text.
  const viaBase64 = database.kind === "pglite";
  const writeChunk = (key: string, seq: number, chunk: Buffer) => {
    const value = viaBase64 ? sql`decode(${chunk.toString("base64")}, 'base64')` : sql`${chunk}`;
    return sql`INSERT INTO blob_chunks (blob_key, seq, bytes) VALUES (${key}, ${seq}, ${value})`.execute(database.db);
  };
  const dropChunks = (key: string) => sql`DELETE FROM blob_chunks WHERE blob_key = ${key}`.execute(database.db);

  return {
    async putStream(source, { maxBytes }) {
      await migrated();
      const key = `upload:${randomUUID()}`;
      const hash = createHash("sha256");
      let size = 0;
      let seq = 0;
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      const flush = async () => {
        if (pendingBytes === 0) return;
        await writeChunk(key, seq++, Buffer.concat(pending, pendingBytes));
        pending = [];
        pendingBytes = 0;
      };
      try {
        for await (const part of source) {
          size += part.byteLength;
          if (size > maxBytes) throw new BlobTooLargeError(maxBytes);
          hash.update(part);
          pending.push(Buffer.from(part.buffer, part.byteOffset, part.byteLength));
          pendingBytes += part.byteLength;
          if (pendingBytes >= CHUNK_BYTES) await flush();
        }
        await flush();
      } catch (error) {
        await dropChunks(key);
        throw error;
      }
      const sha256 = hash.digest("hex");
      await database.db.transaction().execute(async (tx) => {
        // The row lock this takes orders it with a release of the same bytes: either the blob is still
        // there and held once more, or it is gone and these chunks become it.
        const { rows } = await sql<{ inserted: boolean }>`
          INSERT INTO streamed_blobs (sha256, size, chunks) VALUES (${sha256}, ${size}, ${seq})
          ON CONFLICT (sha256) DO UPDATE SET holds = streamed_blobs.holds + 1
          RETURNING (xmax = 0) AS inserted`.execute(tx);
        // Already stored by an earlier upload of the same bytes: this copy is not needed.
        if (!rows[0]!.inserted) await sql`DELETE FROM blob_chunks WHERE blob_key = ${key}`.execute(tx);
        else await sql`UPDATE blob_chunks SET blob_key = ${sha256} WHERE blob_key = ${key}`.execute(tx);
      });
      return { sha256, size };
    },

    async release(sha256) {
      await migrated();
      await database.db.transaction().execute(async (tx) => {
        const { rows } = await sql<{ holds: number }>`
          UPDATE streamed_blobs SET holds = holds - 1 WHERE sha256 = ${sha256} RETURNING holds`.execute(tx);
        if (!rows[0] || rows[0].holds > 0) return;
        await sql`DELETE FROM blob_chunks WHERE blob_key = ${sha256}`.execute(tx);
        await sql`DELETE FROM streamed_blobs WHERE sha256 = ${sha256}`.execute(tx);
      });
    },

    async *readStream(sha256) {
      await migrated();
      const { rows } = await sql<{ chunks: number }>`SELECT chunks FROM streamed_blobs WHERE sha256 = ${sha256}`.execute(database.db);
      if (!rows[0]) throw new BlobNotFoundError(sha256);
      for (let seq = 0; seq < rows[0].chunks; seq++) {
        if (viaBase64) {
          const chunk = await sql<{
            bytes: string;
          }>`SELECT encode(bytes, 'base64') AS bytes FROM blob_chunks WHERE blob_key = ${sha256} AND seq = ${seq}`.execute(database.db);
          yield Buffer.from(chunk.rows[0]!.bytes, "base64");
        } else {
          const chunk = await sql<{ bytes: Uint8Array }>`SELECT bytes FROM blob_chunks WHERE blob_key = ${sha256} AND seq = ${seq}`.execute(
            database.db,
          );
          const bytes = chunk.rows[0]!.bytes;
          yield Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        }
      }
    },
  };
}
