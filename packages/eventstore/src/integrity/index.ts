export { canonicalJson } from "./canonicalJson.js";
export { contentHash, linkHash, GENESIS } from "./hashes.js";
export { sealKeys, verifySignature, type SealKeys } from "./signing.js";
export { sealStore, type SealOptions, type SealOutcome } from "./seal.js";
export { verifyStore, type VerifyStoreOptions } from "./verifyStore.js";
export { Verifier, type VerifierOptions, type StoreHeads } from "./verifier.js";
export { describeReport, type IntegrityBreak, type IntegrityReport } from "./report.js";
export { ERASURE_STREAM, SEAL_STREAM, SEALED, ERASED, isSeal, isErasure, erasedEntries } from "./records.js";
export type { SealData, SealBody, ErasureData, ChainEntry } from "./records.js";
