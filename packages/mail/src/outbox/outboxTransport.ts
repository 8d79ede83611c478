import { randomBytes } from "node:crypto";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { sameOutcomeForAll } from "../deliveryOutcome.js";
import type { MailTransport } from "../port.js";

const safeId = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * Writes each email to `<directory>/<emailId>.eml`: the embedded default, for development. The file
 * appears whole or not at all (temp file, then rename), and a redelivery replaces it, so there is one
 * file per email however often it is sent. The envelope is not written: bcc recipients leave no trace.
 * The TLS policy has nothing to apply to: nothing leaves the machine.
 */
export function createOutboxTransport(directory: string): MailTransport {
  let directoryExists = false;
  return {
    async send(mail) {
      if (!safeId.test(mail.emailId)) throw new Error(`outbox: an email id must be a file name, got ${JSON.stringify(mail.emailId)}`);
      const file = join(directory, `${mail.emailId}.eml`);
      const temporary = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
      try {
        if (!directoryExists) {
          await mkdir(directory, { recursive: true });
          directoryExists = true;
        }
        await writeFile(temporary, mail.raw);
        await rename(temporary, file);
      } catch (error) {
        await rm(temporary, { force: true });
        return sameOutcomeForAll(mail.envelope.to, { kind: "deferred", response: `outbox: ${(error as Error).message}` });
      }
      return sameOutcomeForAll(mail.envelope.to, { kind: "delivered", code: 250, response: `250 written to ${file}` });
    },
    async close() {},
  };
}
