import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { describeReport, parsePosition, verifyExport, verifyStore, type EventStore, type IntegrityReport } from "@tidings/eventstore";
import type { CliOutput } from "../cliOutput.js";
import { UsageError } from "../usageError.js";

export interface AuditVerifyOptions {
  stream?: string;
  from?: string;
  /** The store's public key in hex; by default the one derived from the secret. */
  publicKey?: string;
  json: boolean;
}

/**
 * `tidings audit verify [--stream S] [--from POSITION]`: walks the store's hashes and seals
 * (docs/operations.md, "Integrity"). 0 when intact, 1 at the first break, which it names.
 */
export async function auditVerify(store: EventStore, options: AuditVerifyOptions, output: CliOutput): Promise<number> {
  if (options.stream !== undefined && options.from !== undefined) throw new UsageError("--stream and --from do not go together");
  const started = performance.now();
  const report = await verifyStore(store, {
    ...(options.stream !== undefined && { streamId: options.stream }),
    ...(options.from !== undefined && { after: position(options.from) }),
    ...(options.publicKey !== undefined && { publicKey: options.publicKey }),
    progress: (at, events) => {
      if (events % 100_000 === 0) output.err(`verified ${events} events, at ${at.commit}/${at.prepare}`);
    },
  });
  const limits =
    options.stream === undefined
      ? []
      : [`only the chain of ${options.stream} was checked: seals cover all of $all, and \`audit verify\` without --stream checks them`];
  return print(report, limits, options.json, output, performance.now() - started);
}

/** `tidings audit verify --file FILE`: checks an export offline, with no store. */
export async function auditVerifyFile(file: string, options: { publicKey?: string; json: boolean }, output: CliOutput): Promise<number> {
  const started = performance.now();
  const lines = () => createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  const { report, limits } = await verifyExport(lines, options.publicKey);
  return print(report, limits, options.json, output, performance.now() - started);
}

function print(report: IntegrityReport, limits: string[], json: boolean, output: CliOutput, ms: number): number {
  if (json) {
    output.out(JSON.stringify({ ...report, limits, seconds: ms / 1000 }, (_, v: unknown) => (typeof v === "bigint" ? v.toString() : v)));
  } else {
    for (const line of describeReport(report)) output.out(line);
    for (const limit of limits) output.out(`cannot vouch: ${limit}`);
    output.err(`${report.events} events in ${(ms / 1000).toFixed(1)} s`);
  }
  return report.ok ? 0 : 1;
}

function position(text: string) {
  try {
    return parsePosition(text);
  } catch {
    throw new UsageError(`--from must be a position like 123/456 (as \`audit export\` prints), not "${text}"`);
  }
}
