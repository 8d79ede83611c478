export * from "./blobStore.js";
export * from "./streamedBlobs.js";
export * from "./forgetBlobs.js";
