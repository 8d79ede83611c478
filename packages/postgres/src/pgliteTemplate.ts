import { readFile, rename, stat, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";

/**
 * A fresh PGlite runs initdb, about 2.5–4.5 s on this machine; loading a dump of a fresh one takes about
 * 0.8 s. Test files each want a database of their own, so the first one to need it writes the dump to the
 * temp directory (atomically: workers race) and every later one loads it.
 */
export async function pgliteTemplate(): Promise<Blob> {
  // Keyed by the installed PGlite build, so an upgrade never loads a data directory of another version.
  const build = await stat(createRequire(import.meta.url).resolve("@electric-sql/pglite"));
  const file = join(tmpdir(), `tidings-pglite-template-${build.size}-${Math.trunc(build.mtimeMs)}.tar`);
  try {
    return new Blob([await readFile(file)]);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const fresh = new PGlite();
  try {
    const dump = await fresh.dumpDataDir("none");
    const partial = `${file}.${process.pid}.${Date.now()}`;
    await writeFile(partial, Buffer.from(await dump.arrayBuffer()));
    await rename(partial, file);
    return dump;
  } finally {
    await fresh.close();
  }
}
