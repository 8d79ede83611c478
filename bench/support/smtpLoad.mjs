// Closed-loop load on SMTP submission: `connections` clients, each on one connection of its own kept open
// (nodemailer's pool of one), sending the next message as soon as the last was answered, like wrk's HTTP
// connections. It runs in the bench's own Node process, so on a small machine it takes CPU the server
// would otherwise have: the figure is a floor for what the listener takes.
import nodemailer from "nodemailer";

/**
 * Sends `message` over `connections` connections for `seconds`, authenticated with `token` as the password.
 * Resolves with `{ accepted, refused, refusals, p50Ms, p99Ms }`: messages answered 250 and otherwise, the first
 * few refusals' replies, and the latency of the accepted ones.
 */
export async function smtpLoad({ port, token, message, connections, seconds }) {
  const until = performance.now() + seconds * 1000;
  const latencies = [];
  const refusals = [];
  let refused = 0;
  const client = async () => {
    const transport = nodemailer.createTransport({
      host: "127.0.0.1",
      port,
      secure: false,
      ignoreTLS: true,
      pool: true,
      maxConnections: 1,
      maxMessages: Infinity,
      auth: { user: "resend", pass: token },
    });
    try {
      while (performance.now() < until) {
        const startedAt = performance.now();
        try {
          await transport.sendMail(message);
          latencies.push(performance.now() - startedAt);
        } catch (error) {
          refused++;
          if (refusals.length < 3) refusals.push(error.response ?? error.message);
        }
      }
    } finally {
      transport.close();
    }
  };
  await Promise.all(Array.from({ length: connections }, client));
  latencies.sort((a, b) => a - b);
  const at = (share) => Number((latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * share))] ?? 0).toFixed(2));
  return { accepted: latencies.length, refused, refusals, p50Ms: at(0.5), p99Ms: at(0.99) };
}
