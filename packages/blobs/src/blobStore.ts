import { hash } from "node:crypto";
import { sql } from "kysely";
import { migrate, type Database, type Migration } from "@tidings/postgres";

/**
 * Content-addressed bytes (attachments, import files) kept out of events (docs/architecture.md §4: EventStoreDB caps an
 * event at 16 MiB, NATS advises 1 MB). A table rather than files, so it works the same in every mode and
 * every api and sagas process sees the same blobs.
 */
/** The table `blobStoreMigrations` creates, for `database.tables<BlobTables>()`. */
export interface BlobTables {
  blobs: { sha256: string; size: number; bytes: Buffer; created_at: Date };
}

export interface BlobStore {
  /** Stores the bytes once, however often they are put; returns their sha256 in hex. */
  put(bytes: Uint8Array): Promise<string>;
  /** The bytes stored under `sha256`; throws a `BlobNotFoundError` when there are none. */
  get(sha256: string): Promise<Buffer>;
}

export class BlobNotFoundError extends Error {
  override readonly name = "BlobNotFoundError";
  constructor(readonly sha256: string) {
    super(`No blob ${sha256}`);
  }
}

export const blobMigrations: Migration[] = [
  {
    id: "0001_blobs",
    sql: `CREATE TABLE IF NOT EXISTS blobs (
      sha256 text PRIMARY KEY,
      size integer NOT NULL,
      bytes bytea NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );`,
  },
];

export const BLOBS_COMPONENT = "blobs";

export const sha256Hex = (bytes: Uint8Array) => hash("sha256", bytes, "hex");

/** Applies its own table on first use, so any process that opens a store can use it without a setup step. */
export function createBlobStore(database: Database): BlobStore {
  let ready: Promise<unknown> | undefined;
  const migrated = () =>
    (ready ??= migrate(database, BLOBS_COMPONENT, blobMigrations).catch((error) => {
      ready = undefined;
      throw error;
    }));
  // PGlite moves a bytea parameter or column through JavaScript byte by byte (about 1.7 MB/s measured);
  // base64 text crosses as one string, many times faster. pg takes bytea natively, so it keeps it.
  const viaBase64 = database.kind === "pglite";
  return {
    async put(bytes) {
      await migrated();
      const sha256 = sha256Hex(bytes);
      const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      const value = viaBase64 ? sql`decode(${buffer.toString("base64")}, 'base64')` : sql`${buffer}`;
      await sql`INSERT INTO blobs (sha256, size, bytes) VALUES (${sha256}, ${bytes.byteLength}, ${value}) ON CONFLICT (sha256) DO NOTHING`.execute(
        database.db,
      );
      return sha256;
    },
    async get(sha256) {
      await migrated();
      if (viaBase64) {
        const { rows } = await sql<{ bytes: string }>`SELECT encode(bytes, 'base64') AS bytes FROM blobs WHERE sha256 = ${sha256}`.execute(
          database.db,
        );
        if (!rows[0]) throw new BlobNotFoundError(sha256);
        return Buffer.from(rows[0].bytes, "base64");
      }
      const { rows } = await sql<{ bytes: Uint8Array }>`SELECT bytes FROM blobs WHERE sha256 = ${sha256}`.execute(database.db);
      const row = rows[0];
      if (!row) throw new BlobNotFoundError(sha256);
      return Buffer.from(row.bytes.buffer, row.bytes.byteOffset, row.bytes.byteLength);
    },
  };
}
