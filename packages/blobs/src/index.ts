export * from "./blobStore.js";
export * from "./streamedBlobs.js";
