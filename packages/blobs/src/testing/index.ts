import type { Database } from "@tidings/postgres";
import type { StreamedBlobTables } from "../streamedBlobs.js";

/** The chunks of uploads still under way, or left by one refused: an upload over its limit must keep none. */
export function uploadChunksLeft(database: Database): Promise<{ blob_key: string }[]> {
  return database.tables<StreamedBlobTables>().selectFrom("blob_chunks").select("blob_key").where("blob_key", "like", "upload:%").execute();
}
