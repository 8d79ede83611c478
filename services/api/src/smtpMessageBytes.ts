import type { SMTPServerDataStream } from "smtp-server";

/**
 * The bytes a client sends after DATA, to `received`; past the listener's size limit, `tooBig()` instead.
 * smtp-server streams the rest of an oversized message too: none of it is kept, and the answer (552) comes
 * at its end. Shared by the inbound and the submission listeners.
 */
export function readMessageBytes(stream: SMTPServerDataStream, received: (raw: Buffer) => void, tooBig: () => void): void {
  const chunks: Buffer[] = [];
  stream.on("data", (chunk: Buffer) => {
    if (!stream.sizeExceeded) chunks.push(chunk);
  });
  stream.on("end", () => (stream.sizeExceeded ? tooBig() : received(Buffer.concat(chunks))));
}
