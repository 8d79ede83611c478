// What this machine allows before any Tidings logic: the CPU cost, in milliseconds per unit summed over
// every process involved, of the three things each email must go through, each measured alone with
// nothing else running, at the batching that makes it cheapest:
//   1. mail: nodemailer's composer (the choice) and its pooled SMTP client in this process, into
//      a loopback smtp-server sink in a child process (16 connections, 64 messages in flight);
//   2. append: 2-event appends to new streams through our PostgreSQL event store, 256 in flight so group
//      commit fills its sets, and the bare floor under any PostgreSQL event store: the same events as one
//      multi-row INSERT of 1,000 rows into eventstore.events (no locks, no checks);
//   3. import row: what one imported contact writes at the least, as three multi-row INSERTs per 1,000 rows
//      in one transaction: two events (the email's reservation and the contact's creation) into
//      eventstore.events, their two stream rows into eventstore.streams, and the contact's row in a table
//      shaped as the contacts read model (its indexes included); no locks, no checks, no CSV;
//   4. bus: JetStream publishes with a Nats-Msg-Id (256 in flight) and their consumption by one pull
//      consumer with acks, on the raw `nats` client.
// CPU is read from /proc (this process, the sink, every PostgreSQL backend, nats-server), so it counts
// the kernel's share too. A target of R emails/s on 2 cores leaves 2000/R ms per email for everything.
// Runs the built packages: `npx tsc -b && node bench/floors.mjs`. BENCH_UNITS (default 5000) per step.
import { fork } from "node:child_process";
import { randomUUID } from "node:crypto";
import { connect, AckPolicy, headers } from "nats";
import pg from "pg";
import { measured, natsServer, postgresBackend } from "./support/cpuTime.mjs";
import { withScratchDatabase } from "./support/scratchDatabase.mjs";
import { childToStop, undoOnExit } from "./support/teardown.mjs";

const units = Number(process.env.BENCH_UNITS ?? 5000);
const natsUrl = process.env.NATS_URL ?? "nats://127.0.0.1:4222";

if (process.argv[2] === "--sink") {
  const { startSmtpSink } = await import("@tidings/testkit");
  const sink = await startSmtpSink();
  process.send({ url: sink.url });
  process.on("message", () => process.send({ received: sink.received.splice(0).length }));
  // Its parent gone (killed outright), nobody will ask for it again.
  process.on("disconnect", () => process.exit(0));
  await new Promise(() => {});
}

function report(step, count, { wallMs, cpuMs }, extra = {}) {
  const perUnit = Object.fromEntries(Object.entries(cpuMs).map(([name, ms]) => [`${name}_cpu_ms`, Number((ms / count).toFixed(3))]));
  const total = Object.values(cpuMs).reduce((a, b) => a + b, 0) / count;
  console.log(
    JSON.stringify({
      bench: "floors",
      step,
      units: count,
      per_s: Math.round(count / (wallMs / 1000)),
      cpu_ms_per_unit: Number(total.toFixed(3)),
      ...perUnit,
      ...extra,
    }),
  );
}

async function inParallel(count, width, one) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) await one(next++);
    }),
  );
}

const self = (_, pid) => pid === process.pid;
const postgres = postgresBackend();

async function mailFloor() {
  const { composeMessage, createSmtpTransport, messageIdFor } = await import("@tidings/mail");
  const sink = fork(new URL(import.meta.url).pathname, ["--sink"]);
  const { stop: stopSink } = childToStop(`the SMTP sink (pid ${sink.pid})`, sink);
  const { url } = await new Promise((resolve) => sink.once("message", resolve));
  const transport = createSmtpTransport({ url, maxConnections: 16 });
  const send = async (i) => {
    const raw = await composeMessage({
      from: "Bench <bench@bench.test>",
      to: [`reader${i}@example.test`],
      subject: "Bench",
      html: "<p>Hello from <b>bench/send</b></p>",
      text: "Hello from bench/send",
      messageId: messageIdFor(randomUUID(), "bench.test"),
      date: new Date(),
    });
    const outcome = await transport.send({
      emailId: String(i),
      envelope: { from: "bench@bench.test", to: [`reader${i}@example.test`] },
      raw,
      tls: "opportunistic",
    });
    if (outcome.kind !== "delivered") throw new Error(`not delivered: ${JSON.stringify(outcome)}`);
  };
  await inParallel(500, 64, send);
  const run = await measured({ client: self, sink: (_, pid) => pid === sink.pid }, () => inParallel(units, 64, send));
  await transport.close();
  sink.send("count");
  const { received } = await new Promise((resolve) => sink.once("message", resolve));
  await stopSink();
  report("mail: compose + smtp client + sink", units, run, { received });
}

async function appendFloor(url) {
  const { openEventStore } = await import("@tidings/eventstore");
  const opened = await openEventStore(url);
  const anEvent = (type) => ({
    id: randomUUID(),
    type,
    data: { emailId: randomUUID(), recipients: ["someone@example.com"], at: new Date().toISOString() },
    metadata: { teamId: "team-1", actor: "bench" },
  });
  const append = () => opened.store.append(`email-${randomUUID()}`, [anEvent("EmailSent"), anEvent("EmailDelivered")], "no_stream");
  await inParallel(1000, 256, append);
  report(
    "append: 2 events to a new stream, 256 in flight",
    units,
    await measured({ client: self, postgres }, () => inParallel(units, 256, append)),
    { events_per_unit: 2 },
  );
  await opened.close();

  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const rows = 1000;
  const insert = async () => {
    const values = Array.from({ length: rows }, () => [
      `email-${randomUUID()}`,
      0,
      randomUUID(),
      "EmailSent",
      JSON.stringify(anEvent("EmailSent").data),
      '{"teamId":"team-1"}',
    ]);
    await client.query(
      `INSERT INTO eventstore.events (stream_id, revision, event_id, type, data, metadata, hash)
       SELECT u.*, md5(u.id::text) || md5(u.s) FROM unnest($1::text[], $2::bigint[], $3::uuid[], $4::text[], $5::jsonb[], $6::jsonb[]) AS u(s, r, id, t, d, m)`,
      [0, 1, 2, 3, 4, 5].map((c) => values.map((v) => v[c])),
    );
  };
  const batches = Math.max(1, Math.round(units / 100));
  report(
    `bare insert: ${rows} events in one statement`,
    batches * rows,
    await measured({ client: self, postgres }, async () => {
      for (let i = 0; i < batches; i++) await insert();
    }),
  );

  await client.query(`CREATE TABLE floor_contacts (id uuid PRIMARY KEY, team_id uuid NOT NULL, email text NOT NULL, first_name text, last_name text,
    unsubscribed boolean NOT NULL, properties jsonb NOT NULL, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL)`);
  await client.query("CREATE INDEX ON floor_contacts (team_id, created_at DESC, id DESC)");
  await client.query("CREATE INDEX ON floor_contacts (team_id, email)");
  const team = randomUUID();
  let row = 0;
  const importRows = async () => {
    const contacts = Array.from({ length: rows }, () => ({ id: randomUUID(), email: `person${row++}@example.com` }));
    const events = contacts.flatMap((c) => [
      [`unique-${team}-contact-email-${c.id}`, randomUUID(), "ContactEmailReserved", JSON.stringify({ teamId: team, contactId: c.id })],
      [
        `contact-${c.id}`,
        randomUUID(),
        "ContactCreated",
        JSON.stringify({
          teamId: team,
          contactId: c.id,
          email: c.email,
          firstName: "First",
          lastName: "Last",
          properties: { plan: "pro", seats: 3, city: "City" },
        }),
      ],
    ]);
    const column = (i) => events.map((e) => e[i]);
    await client.query("BEGIN");
    await client.query(
      `INSERT INTO eventstore.events (stream_id, revision, event_id, type, data, metadata, hash)
       SELECT s, 0, id, t, d, '{"teamId":"team-1"}'::jsonb, md5(id::text) || md5(s) FROM unnest($1::text[], $2::uuid[], $3::text[], $4::jsonb[]) AS u(s, id, t, d)`,
      [column(0), column(1), column(2), column(3)],
    );
    await client.query(
      "INSERT INTO eventstore.streams (stream_id, revision, hash) SELECT s, 0, md5(s) || md5(s) FROM unnest($1::text[]) AS u(s)",
      [column(0)],
    );
    await client.query(
      `INSERT INTO floor_contacts (id, team_id, email, first_name, last_name, unsubscribed, properties, created_at, updated_at)
       SELECT id, $1, email, 'First', 'Last', false, '{"plan":"pro","seats":3,"city":"City"}'::jsonb, now(), now() FROM unnest($2::uuid[], $3::text[]) AS u(id, email)`,
      [team, contacts.map((c) => c.id), contacts.map((c) => c.email)],
    );
    await client.query("COMMIT");
  };
  report(
    `import row: 2 events, 2 stream rows and a contact row, ${rows} rows a transaction`,
    batches * rows,
    await measured({ client: self, postgres }, async () => {
      for (let i = 0; i < batches; i++) await importRows();
    }),
  );
  await client.end();
}

async function busFloor() {
  const nc = await connect({ servers: natsUrl });
  const jsm = await nc.jetstreamManager();
  const name = `FLOORS_${process.pid}`;
  const deleteStream = undoOnExit(`NATS stream ${name}`, () => jsm.streams.delete(name));
  await jsm.streams.add({ name, subjects: [`${name}.>`] });
  try {
    const js = nc.jetstream();
    const body = new TextEncoder().encode(
      JSON.stringify({ id: randomUUID(), type: "EmailSent", data: { emailId: randomUUID() }, metadata: { teamId: "team-1" } }),
    );
    const publish = (i) => {
      const h = headers();
      h.set("Nats-Msg-Id", `${name}-${i}`);
      return js.publish(`${name}.email.EmailSent`, body, { headers: h });
    };
    report(
      "bus: publish with Nats-Msg-Id, 256 in flight",
      units,
      await measured({ client: self, nats: natsServer }, () => inParallel(units, 256, publish)),
    );
    await jsm.consumers.add(name, { durable_name: "floors", ack_policy: AckPolicy.Explicit, max_ack_pending: 1024 });
    const consumer = await js.consumers.get(name, "floors");
    report(
      "bus: pull consume with ack",
      units,
      await measured({ client: self, nats: natsServer }, async () => {
        const messages = await consumer.consume({ max_messages: 256 });
        let seen = 0;
        for await (const m of messages) {
          m.ack();
          if (++seen === units) break;
        }
        messages.stop();
      }),
    );
  } finally {
    await deleteStream();
    await nc.close();
  }
}

await mailFloor();
await withScratchDatabase("floors", async (url) => {
  const { openDatabase, migrate } = await import("@tidings/postgres");
  const { eventStoreMigrations } = await import("@tidings/eventstore");
  const database = await openDatabase({ url });
  await migrate(database, "eventstore", eventStoreMigrations);
  await database.close();
  await appendFloor(url);
});
await busFloor();
process.exit(0);
