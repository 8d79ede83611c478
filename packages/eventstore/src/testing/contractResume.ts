import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { ContractContext } from "./contract.js";
import { aCategoryWithEvents, aStreamId, events, readAllUntil, SubscriptionReader } from "./contractBuilders.js";
import { formatPosition } from "../port.js";

const child = fileURLToPath(new URL("./contractResumeChild.mjs", import.meta.url));
const built = fileURLToPath(new URL("../../dist/index.js", import.meta.url));

function runChild(args: string[]): Promise<{ resumed: string[]; live: string }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [child, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    proc.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    proc.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    proc.on("error", reject);
    proc.on("close", (code) => {
      if (code !== 0) return reject(new Error(`the child process exited with ${String(code)}: ${stderr}`));
      resolve(JSON.parse(stdout.trim().split("\n").at(-1)!) as { resumed: string[]; live: string });
    });
  });
}

export function resumeContract(context: ContractContext): void {
  describe("restart", () => {
    it("keeps events across a reopen", async () => {
      const stream = aStreamId();
      const appended = events(2);
      await context.store().append(stream, appended, "no_stream");
      const store = await context.reopen();
      expect((await store.readStream(stream)).map((e) => e.id)).toEqual(appended.map((e) => e.id));
    });

    it("resumes a subscription from a checkpoint in a new process", async () => {
      if (!existsSync(built)) throw new Error(`the child process runs the built package: run \`npx tsc -b\` first (${built} is missing)`);
      const store = context.store();
      const { category, before, stream, appended: first } = await aCategoryWithEvents(store, 5);
      const subscription = store.subscribeToAll({ after: before, filter: { streamCategory: [category] } });
      const checkpoint = (await new SubscriptionReader(subscription).take(2))[1]!.position;
      await subscription.stop();
      const later = events(3);
      await store.append(stream, later, 4n);
      // An embedded store is one process's alone: the child can only open it once this one lets go.
      await store.close();

      const result = await runChild([context.fixture().url, formatPosition(checkpoint), category, "6"]);
      expect(result.resumed).toEqual([...first.slice(2), ...later].map((e) => e.id));

      const reopened = await context.reopen();
      const all = await readAllUntil(reopened, { after: checkpoint, filter: { streamCategory: [category] } }, (r) => r.length === 7);
      expect(all.map((e) => e.id)).toContain(result.live);
    });
  });
}
