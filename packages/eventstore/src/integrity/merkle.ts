import { sha256Hex } from "@tidings/core";
import { byUtf8 } from "./canonicalJson.js";

/** A stream's last event: its revision and hash. */
export interface StreamHead {
  revision: bigint;
  hash: string;
}

/**
 * The Merkle root over heads sorted by stream id: leaves `sha256("leaf|" stream "|" revision "|" hash)`,
 * nodes `sha256("node|" left right)`, an odd node carried up as it is; "" for no heads. The prefixes keep
 * a leaf from passing for a node.
 */
export function headsRoot(heads: Map<string, StreamHead>): string {
  let level = [...heads.keys()].sort(byUtf8).map((stream) => {
    const head = heads.get(stream)!;
    return sha256Hex(`leaf|${stream}|${head.revision}|${head.hash}`);
  });
  if (level.length === 0) return "";
  while (level.length > 1) {
    const next: string[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(i + 1 < level.length ? sha256Hex(`node|${level[i]!}${level[i + 1]!}`) : level[i]!);
    level = next;
  }
  return level[0]!;
}
