import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);

const initdb = `
const [pglite, directory, ...startParams] = process.argv.slice(1);
const { PGlite } = await import(pglite);
const pg = new PGlite(directory, { startParams });
await pg.waitReady;
await pg.close();
`;

/**
 * Runs initdb for a PGlite directory that has no database yet, in a Node process of its own. PGlite runs
 * initdb in two more WebAssembly instances beside the one it opens and drops them unreferenced: nothing made
 * V8 collect them, so a first start idled at 596 MB resident where a restart took 314 MB. In a worker thread
 * the instances went, but the malloc arenas of its compilations stayed (411 MB); a process gives it all back.
 */
export async function initialiseDataDir(directory: string, startParams: string[]): Promise<void> {
  if (existsSync(join(directory, "PG_VERSION"))) return;
  const pglite = pathToFileURL(createRequire(import.meta.url).resolve("@electric-sql/pglite")).href;
  await run(process.execPath, ["--input-type=module", "-e", initdb, pglite, directory, ...startParams]).catch((error: unknown) => {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new Error(`initdb for ${directory} failed${stderr ? `: ${stderr}` : ""}`, { cause: error });
  });
}
