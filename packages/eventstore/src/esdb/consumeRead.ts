/** The part of the client's streaming read that consuming one needs. */
export interface ClientRead<E> extends AsyncIterable<E> {
  on(event: "error", listener: (error: Error) => void): unknown;
  cancel(): Promise<void>;
}

/**
 * Feeds a client read to `take` until the read ends or `take` returns false. Stopping early cancels the
 * server call, which would otherwise stay open behind the stream's backpressure.
 */
export async function consumeRead<E>(read: ClientRead<E>, take: (event: E) => boolean): Promise<void> {
  for await (const event of read) {
    if (take(event)) continue;
    // The answer is complete; a late error of the abandoned call must not become an unhandled 'error' event.
    read.on("error", () => undefined);
    await read.cancel();
    return;
  }
}
