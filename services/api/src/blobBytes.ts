import { BlobNotFoundError, type BlobStore } from "@tidings/blobs";
import { TidingsError } from "@tidings/core";

/** A download's bytes; a blob gone from the store (an erasure) is the thing not found, not a 500. */
export async function blobBytes(blobs: BlobStore, sha256: string, notFound: string): Promise<Buffer> {
  try {
    return await blobs.get(sha256);
  } catch (error) {
    if (error instanceof BlobNotFoundError) throw new TidingsError("not_found", notFound);
    throw error;
  }
}
