// Messages per second through @tidings/mail alone: compose, with and without a DKIM signature (RSA-2048),
// on its own, then compose (+ sign) + send through the pooled smtp transport into a loopback SMTP sink,
// at 4 and 8 connections, 64 sends in flight. The sink runs in this process, so it takes its share of the CPU.
// Runs the built packages: `npx tsc -b && node bench/mail-transport.mjs`. One JSON line per run.
// BENCH_MESSAGES (default 2000) sets the messages per run.
import { generateKeyPairSync } from "node:crypto";
import { composeMessage, createSmtpTransport, messageIdFor } from "@tidings/mail";
import { startSmtpSink } from "@tidings/testkit";

const messages = Number(process.env.BENCH_MESSAGES ?? 2000);
const inFlight = 64;
const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const dkim = { domainName: "acme.test", keySelector: "bench", privateKey: privateKey.export({ type: "pkcs8", format: "pem" }) };
const html = `<p>Hello {{name}},</p>${"<p>Your receipt, with a line of text long enough to look like a real email.</p>".repeat(20)}`;

const compose = (i, signed = true) =>
  composeMessage({
    from: "Acme <hello@acme.test>",
    to: [`user${i}@example.test`],
    subject: `Receipt ${i}`,
    html,
    text: "Hello, your receipt.",
    messageId: messageIdFor(`bench-${i}`, "acme.test"),
    date: new Date(),
    ...(signed && { dkim }),
  });

async function run(count, one) {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < count) await one(next++);
    }),
  );
  return count / ((performance.now() - started) / 1000);
}

for (const signed of [false, true]) {
  const composed = await run(messages, (i) => compose(i, signed));
  console.log(
    JSON.stringify({ bench: "mail-transport", step: signed ? "compose+sign" : "compose", messages, perSecond: Math.round(composed) }),
  );
}

const sink = await startSmtpSink();
for (const [connections, signed] of [
  [4, false],
  [4, true],
  [8, true],
]) {
  sink.reset();
  const transport = createSmtpTransport({ url: sink.url, maxConnections: connections });
  let notDelivered = 0;
  const rate = await run(messages, async (i) => {
    const raw = await compose(i, signed);
    const outcome = await transport.send({
      emailId: `bench-${i}`,
      envelope: { from: "hello@acme.test", to: [`user${i}@example.test`] },
      raw,
      tls: "opportunistic",
    });
    if (outcome.kind !== "delivered") notDelivered++;
  });
  await transport.close();
  console.log(
    JSON.stringify({
      bench: "mail-transport",
      step: signed ? "compose+sign+send" : "compose+send",
      connections,
      messages,
      received: sink.received.length,
      notDelivered,
      perSecond: Math.round(rate),
    }),
  );
}
await sink.close();
