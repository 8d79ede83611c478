import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { randomBytes } from "node:crypto";

export class DataDirLockedError extends Error {
  override readonly name = "DataDirLockedError";
}

export interface DataDir {
  path: string;
  release(): void;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Two PGlite instances on one directory both open and then lose writes (STACK-NOTES), so the embedded
 * mode owns DATA_DIR exclusively through a pid file created with O_EXCL. A lock left by a dead process
 * is taken over; a live one refuses the start with a message that says who holds it.
 */
export function lockDataDir(dir: string): DataDir {
  const path = resolve(dir);
  mkdirSync(path, { recursive: true });
  const lockFile = join(path, "tidings.pid");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockFile, "wx");
      writeFileSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      return {
        path,
        release() {
          if (released) return;
          released = true;
          rmSync(lockFile, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = Number(readFileSync(lockFile, "utf8").trim());
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && isAlive(holder)) {
        throw new DataDirLockedError(`${path} is in use by process ${holder}; stop it or set DATA_DIR to another directory`);
      }
      rmSync(lockFile, { force: true });
    }
  }
  throw new DataDirLockedError(`could not lock ${path}`);
}

/** The embedded secret: generated on first start and kept beside the data, so sealed values stay readable. */
export function embeddedSecret(dir: string): string {
  const file = join(resolve(dir), "secret");
  try {
    return readFileSync(file, "utf8").trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  mkdirSync(resolve(dir), { recursive: true });
  const secret = randomBytes(32).toString("base64url");
  writeFileSync(file, secret + "\n", { mode: 0o600, flag: "wx" });
  return secret;
}
