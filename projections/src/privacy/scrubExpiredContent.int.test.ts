import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import { automationRunStream, contactImportStream, emailStream, inboundEmailStream, webhookDeliveryStream } from "@tidings/domain";
import type { EventStore, EventToAppend, Position } from "@tidings/eventstore";
import { testMode } from "@tidings/postgres";
import { contentKinds, createPrivacy, type Privacy } from "@tidings/privacy";
import { startProjections } from "../engine/runner.js";
import { verifyProjection } from "../engine/verify.js";
import { productProjections } from "../readmodels/productProjections.js";
import { personalEvents as events } from "@tidings/domain/testing";
import { rowsHolding } from "../testing/rowsHolding.js";
import { storeOnTestDatabase } from "../testing/storeOnTestDatabase.js";
import { quietLogger } from "../testing/testBuilders.js";
import { contentPlaceholder } from "./contentPlaceholder.js";
import { scrubExpiredContent } from "./scrubExpiredContent.js";

const env = storeOnTestDatabase();
const secret = "a-test-secret-of-enough-length-0123456789";
const team = randomUUID();
const dee = `dee.${randomUUID().slice(0, 8)}@example.com`;

/** One resource of each kind of content, every content value a canary named after its age. */
function resources(age: "old" | "new") {
  const u = `${age}${randomUUID().slice(0, 8)}`;
  const ids = { email: randomUUID(), inbound: randomUUID(), delivery: randomUUID(), import: randomUUID(), run: randomUUID() };
  const canaries = [
    `subject-${u}`,
    `invoice-${u}`,
    `link-${u}`,
    `inbound-${u}`,
    `photo-${u}`,
    `payload-${u}`,
    `reply-${u}`,
    `reason-${u}`,
    `output-${u}`,
    `error-${u}`,
  ];
  const streams: [string, EventToAppend[]][] = [
    [
      emailStream(ids.email),
      [
        events.emailQueued(team, ids.email, {
          to: [dee],
          subject: `subject-${u}`,
          html: `<p>Hello ${u}</p>`,
          attachment: `invoice-${u}.pdf`,
        }),
        ...events.emailEngaged(team, ids.email, `https://shop.test/link-${u}`),
      ],
    ],
    [
      inboundEmailStream(ids.inbound),
      [
        events.inboundReceived(team, ids.inbound, {
          from: dee,
          to: ["inbox@receiving.test"],
          subject: `inbound-${u}`,
          attachment: `photo-${u}.jpg`,
        }),
      ],
    ],
    [
      webhookDeliveryStream(ids.delivery),
      events.webhookDelivered(team, {
        deliveryId: ids.delivery,
        webhookId: randomUUID(),
        eventType: "email.sent",
        data: { to: [dee], subject: `payload-${u}` },
        response: `reply-${u}`,
      }),
    ],
    [contactImportStream(ids.import), events.importWithErrors(team, ids.import, [{ line: 2, reason: `reason-${u}` }])],
    [
      automationRunStream(ids.run),
      events.automationRun(team, {
        runId: ids.run,
        contactId: randomUUID(),
        payload: {},
        output: { note: `output-${u}` },
        error: `error-${u}`,
      }),
    ],
  ];
  return { ids, canaries, streams };
}

// Built in `beforeAll`, on either side of the cutoff: the builders stamp each event with its time of making.
let old: ReturnType<typeof resources>;
let fresh: ReturnType<typeof resources>;
let privacy: Privacy;
let store: EventStore;
let before: Date;

const rowsOf = async (table: string, where = sql`true`) =>
  (await sql<Record<string, unknown>>`SELECT * FROM ${sql.table(table)} WHERE ${where} ORDER BY 1`.execute(env.database.db)).rows;

/** Every row of the fresh resources, to compare before and after the sweep. */
const freshRows = async () => ({
  emails: await rowsOf("emails", sql`id = ${fresh.ids.email}`),
  clicks: await rowsOf("email_link_clicks", sql`email_id = ${fresh.ids.email}`),
  inbound: await rowsOf("inbound_emails", sql`id = ${fresh.ids.inbound}`),
  deliveries: await rowsOf("webhook_deliveries", sql`id = ${fresh.ids.delivery}`),
  attempts: await rowsOf("webhook_attempts", sql`delivery_id = ${fresh.ids.delivery}`),
  errors: await rowsOf("contact_import_errors", sql`import_id = ${fresh.ids.import}`),
  steps: await rowsOf("automation_run_steps", sql`run_id = ${fresh.ids.run}`),
});

beforeAll(async () => {
  // A retention of 24 s seals each second's content under a period key of its own (`periodMsOf`).
  privacy = await createPrivacy(env.database, secret, { retention: Object.fromEntries(contentKinds.map((kind) => [kind, 24_000])) });
  store = privacy.sealing(env.store);
  const running = await startProjections({ store, database: env.database, projections: productProjections, logger: quietLogger });
  try {
    let last: Position | undefined;
    old = resources("old");
    for (const [stream, batch] of old.streams) last = (await store.append(stream, batch, "any")).position;
    // The cut is a period boundary (`retentionCut`): the old content's periods end at or before it.
    before = new Date(Math.ceil((Date.now() + 1) / 1000) * 1000);
    await sleep(before.getTime() - Date.now() + 50);
    fresh = resources("new");
    for (const [stream, batch] of fresh.streams) last = (await store.append(stream, batch, "any")).position;
    expect(await running.waitFor(last!, 30_000)).toBe(true);
  } finally {
    await running.stop();
  }
}, 120_000);

describe(`scrubExpiredContent (${testMode()})`, () => {
  let freshBefore: Awaited<ReturnType<typeof freshRows>>;

  it("erases the content of each kind older than the cutoff, as the events now open it, and keeps the addresses", async () => {
    freshBefore = await freshRows();
    expect(await rowsHolding(env.database, old.canaries)).not.toEqual([]);
    const counts: Record<string, Record<string, number>> = {};
    for (const kind of contentKinds) {
      await privacy.keys.expire(kind, before);
      counts[kind] = await scrubExpiredContent(env.database, { kind, before });
    }

    expect(counts).toEqual({
      email: { emails: 1, email_attachments: 1, email_link_clicks: 1 },
      inbound: { inbound_emails: 1, inbound_email_attachments: 1, audit_refs: 1 },
      webhook: { webhook_deliveries: 1, webhook_attempts: 1 },
      event: { automation_runs: 0, automation_run_steps: 2 },
      import: { contact_import_errors: 1 },
    });
    expect(await rowsHolding(env.database, old.canaries)).toEqual([]);
    expect(await rowsOf("emails", sql`id = ${old.ids.email}`)).toMatchObject([
      { to_addresses: [dee], subject: contentPlaceholder("email", old.ids.email) },
    ]);
    expect(await rowsOf("inbound_emails", sql`id = ${old.ids.inbound}`)).toMatchObject([
      {
        from_address: dee,
        subject: contentPlaceholder("inbound", old.ids.inbound),
        message_id: contentPlaceholder("inbound", old.ids.inbound),
      },
    ]);
    expect(await rowsOf("webhook_attempts", sql`delivery_id = ${old.ids.delivery}`)).toMatchObject([
      { response: contentPlaceholder("webhook", old.ids.delivery) },
    ]);
    expect(await rowsOf("automation_run_steps", sql`run_id = ${old.ids.run}`)).toMatchObject([
      { key: "send", status: "completed", output: {} },
      { key: "update", status: "failed", error: contentPlaceholder("event", old.ids.run) },
    ]);
    expect(await rowsOf("contact_imports", sql`id = ${old.ids.import}`)).toMatchObject([{ status: "completed", counts: { failed: 1 } }]);
  });

  it("leaves newer content, and every row a rebuild from the opened events would make, but for ids the audit index found in it", async () => {
    expect(await freshRows()).toEqual(freshBefore);
    for (const projection of productProjections) {
      const result = await verifyProjection({ store, database: env.database, projection });
      if (projection.name !== "audit") {
        expect({ projection: projection.name, differences: result.differences }).toEqual({ projection: projection.name, differences: 0 });
        continue;
      }
      // The expired webhook payload named the recipient: a key of a row a replay no longer makes.
      expect(result.rows.map((r) => ({ replay: r.replay, key: r.key.key }))).toEqual([{ replay: null, key: dee }]);
    }
  }, 120_000);

  it("changes nothing more when repeated", async () => {
    for (const kind of contentKinds) {
      const again = await scrubExpiredContent(env.database, { kind, before });
      expect(Object.entries(again).filter(([, rows]) => rows > 0)).toEqual([]);
    }
  });

  it("sweeps more rows than a page holds, in pages", async () => {
    const bulk = randomUUID();
    await sql`
      INSERT INTO emails (id, team_id, from_address, to_addresses, cc, bcc, reply_to, subject, html, text, tags, last_event, created_at)
      SELECT gen_random_uuid(), ${bulk}, 'shop@sender.test', '[]', '[]', '[]', '[]', 'bulk ' || n, 'bulk html', NULL, '[]', 'queued',
             ${before.toISOString()}::timestamptz - n * interval '1 second'
        FROM generate_series(1, 2500) AS n`.execute(env.database.db);

    expect(await scrubExpiredContent(env.database, { kind: "email", before })).toMatchObject({ emails: 2500 });
    expect(await rowsHolding(env.database, ["bulk "])).toEqual([]);
    expect(await freshRows()).toEqual(freshBefore);
  }, 120_000);
});
