import { connect as connectTcp, type Socket } from "node:net";
import { connect as connectTls } from "node:tls";

/**
 * Asks an SMTP server for its greeting and its answer to EHLO, then says QUIT: what shows a relay answers,
 * without logging in or sending anything. `smtps:` speaks TLS from the start. Resolves with the EHLO reply's
 * first line; rejects with what went wrong.
 */
export async function smtpEhlo(url: string, timeoutMs: number): Promise<string> {
  const target = new URL(url);
  const secure = target.protocol === "smtps:";
  const port = Number(target.port || (secure ? 465 : 587));
  const socket: Socket = secure
    ? connectTls({ host: target.hostname, port, servername: target.hostname, rejectUnauthorized: false })
    : connectTcp({ host: target.hostname, port });
  socket.setTimeout(timeoutMs);
  try {
    const replies = readReplies(socket);
    const greeting = await replies.next();
    if (!greeting.startsWith("220")) throw new Error(`greeted with ${greeting}`);
    socket.write("EHLO tidings-doctor\r\n");
    const ehlo = await replies.next();
    if (!ehlo.startsWith("250")) throw new Error(`EHLO answered ${ehlo}`);
    socket.write("QUIT\r\n");
    return ehlo.split("\r\n")[0]!;
  } finally {
    socket.destroy();
  }
}

/** Whole SMTP replies (the lines up to one whose code is followed by a space), one per `next()`. */
function readReplies(socket: Socket) {
  let buffered = "";
  const waiting: { resolve: (reply: string) => void; reject: (error: Error) => void }[] = [];
  let failure: Error | undefined;
  const flush = () => {
    for (;;) {
      const end = /^\d{3} .*\r\n/m.exec(buffered);
      if (!end || waiting.length === 0) return;
      const cut = end.index + end[0].length;
      waiting.shift()!.resolve(buffered.slice(0, cut).trimEnd());
      buffered = buffered.slice(cut);
    }
  };
  const fail = (error: Error) => {
    failure = error;
    for (const w of waiting.splice(0)) w.reject(error);
  };
  socket.on("data", (chunk: Buffer) => {
    buffered += chunk.toString("latin1");
    flush();
  });
  socket.on("error", fail);
  socket.on("timeout", () => fail(new Error("no answer in time")));
  socket.on("close", () => fail(new Error("the server closed the connection")));
  return {
    next: () =>
      new Promise<string>((resolve, reject) => {
        if (failure) return reject(failure);
        waiting.push({ resolve, reject });
        flush();
      }),
  };
}
