import { deterministicId, formatTimestamp, newId, type Clock } from "@tidings/core";
import type { BlobStore } from "@tidings/blobs";
import { WrongExpectedRevisionError, type EventMetadata, type Position } from "@tidings/eventstore";
import type { ApiKeyPrincipal } from "../plugins/apiKeyLookup.js";
import { prepareEmail, type PrepareDeps } from "../handlers/prepareEmail.js";
import { sendEmail } from "../handlers/sendEmail.js";
import { parseReceived } from "../inbound/parseReceived.js";
import { idempotencyKeyOf, submittedSend } from "./submittedEmail.js";

export interface SubmitDeps {
  prepare: PrepareDeps;
  send: Parameters<typeof sendEmail>[0];
  blobs: BlobStore;
  clock: Clock;
  /** Read-your-writes, as a route waits for it: the email is in `GET /emails` once the 250 is sent. */
  waitFor(position: Position): Promise<boolean>;
}

/**
 * Records a submitted message as an email, through the checks and the append of `POST /emails`, with the
 * message itself kept as the email's raw message. A message carrying an idempotency key (`idempotencyKeyOf`)
 * names the same email however often it is submitted: a client that lost the 250 and sends it again finds
 * the email recorded, and is answered with its id.
 */
export async function submitMessage(
  deps: SubmitDeps,
  key: ApiKeyPrincipal,
  envelope: { recipients: string[] },
  raw: Buffer,
): Promise<string> {
  const parsed = await parseReceived(raw);
  const idempotencyKey = idempotencyKeyOf(parsed);
  const emailId = idempotencyKey === null ? newId() : deterministicId("smtp-submission", key.teamId, idempotencyKey);
  const auth = { teamId: key.teamId, apiKeyId: key.apiKeyId, permission: key.permission, domainId: key.domainId };
  const now = deps.clock.now();
  const prepared = await prepareEmail(deps.prepare, auth, submittedSend(parsed, envelope), now, emailId);
  // Stored only once the checks have passed: a refused message would leave personal content in the blob
  // store that no email refers to, where neither retention nor an erasure would find it.
  const stored = { blob: await deps.blobs.put(raw), size: raw.byteLength };
  const email = { ...prepared, content: { ...prepared.content, raw: stored } };
  const requestId = newId();
  const metadata: EventMetadata = {
    teamId: key.teamId,
    actor: `api:${key.apiKeyId}`,
    requestId,
    correlationId: requestId,
    causationId: requestId,
    occurredAt: formatTimestamp(now),
  };
  try {
    const sent = await sendEmail(deps.send, email, metadata, idempotencyKey === null ? "fresh" : "derived");
    await deps.waitFor(sent.position);
  } catch (error) {
    // The same key recorded this email before: the client is answered as it was then.
    if (!(idempotencyKey !== null && error instanceof WrongExpectedRevisionError)) throw error;
  }
  return emailId;
}
