export * from "./blobStore.js";
