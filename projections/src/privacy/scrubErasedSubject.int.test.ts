import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import { apiMigrations } from "@tidings/api";
import { emailStream } from "@tidings/domain";
import type { EventStore, Position } from "@tidings/eventstore";
import { migrate, testMode } from "@tidings/postgres";
import { contactSubject, createPrivacy, erasedText, subjectTag, type Privacy } from "@tidings/privacy";
import { startProjections, type RunningProjections } from "../engine/runner.js";
import { prepareShadow } from "../engine/readModelVersions.js";
import { verifyProjection } from "../engine/verify.js";
import { emailsProjection } from "../readmodels/emails.js";
import { productProjections } from "../readmodels/productProjections.js";
import { erasureWorld } from "../testing/erasureWorld.js";
import { rowsHolding } from "../testing/rowsHolding.js";
import { storeOnTestDatabase } from "../testing/storeOnTestDatabase.js";
import { quietLogger } from "../testing/testBuilders.js";
import { contentPlaceholder } from "./contentPlaceholder.js";
import { scrubErasedSubject } from "./scrubErasedSubject.js";

const env = storeOnTestDatabase();
const secret = "a-test-secret-of-enough-length-0123456789";
const { team, otherTeam, ada, adaContent, cy, canaries, ids, streams } = erasureWorld();

let privacy: Privacy;
let store: EventStore;
let running: RunningProjections | undefined;

const rowsOf = async (table: string, where = sql`true`) =>
  (await sql<Record<string, unknown>>`SELECT * FROM ${sql.table(table)} WHERE ${where} ORDER BY 1`.execute(env.database.db)).rows;

/** A row of the other team, which has a contact at the same address: its rows keep it. */
const ofOtherTeam = (row: string) => row.includes(otherTeam);

beforeAll(async () => {
  privacy = await createPrivacy(env.database, secret);
  store = privacy.sealing(env.store);
  await migrate(env.database, "api", apiMigrations);
  running = await startProjections({ store, database: env.database, projections: productProjections, logger: quietLogger });
  let last: Position | undefined;
  for (const [stream, batch] of streams) last = (await store.append(stream, batch, "any")).position;
  expect(await running.waitFor(last!, 30_000)).toBe(true);
  await running.stop();
  running = undefined;
  await sql`
    INSERT INTO api_idempotency_keys (team_id, method, path, key, request_hash, owner_request_id, reserved_at, expires_at, response_status, response_body)
    VALUES (${team}, 'PATCH', ${`/contacts/${encodeURIComponent(ada.email.toUpperCase())}`}, 'k1', 'h', ${randomUUID()}, now(), now() + interval '1 day',
            200, ${JSON.stringify({ object: "contact", email: ada.email })})`.execute(env.database.db);
  await sql`
    INSERT INTO projection_operations (name, kind, outcome, started_at, events, seconds, differences, detail)
    VALUES ('audience', 'verify', 'differs', now(), 10, 1, 1, ${JSON.stringify({ rows: [{ email: ada.email, first_name: ada.firstName }] })}::jsonb)`.execute(
    env.database.db,
  );
}, 120_000);

afterAll(async () => {
  await running?.stop();
});

describe(`scrubErasedSubject (${testMode()})`, () => {
  const subjectHash = () => privacy.hashSubject(team, ada.email);
  const placeholder = () => erasedText(subjectTag(subjectHash()));
  /** Rows of other people, or of content not linked to the subject, that the scrub must leave as they are. */
  const untouched = () => ({
    emails: sql`id = ${ids.toCy}`,
    email_attachments: sql`email_id = ${ids.toCy}`,
    inbound_emails: sql`id = ${ids.inboundFromCy}`,
    webhook_deliveries: sql`id = ${ids.deliveryAboutCy}`,
    webhook_attempts: sql`delivery_id = ${ids.deliveryAboutCy}`,
    contact_import_errors: sql`import_id = ${ids.importOther}`,
    automation_run_steps: sql`run_id = ${ids.runOfCy}`,
    contacts: sql`id = ${ids.cy}`,
  });
  const before: Record<string, Record<string, unknown>[]> = {};

  it("leaves no value of the erased subject in any row of the team, and the rows read as the opened events do", async () => {
    expect(await rowsHolding(env.database, canaries, ofOtherTeam)).not.toEqual([]);
    for (const [table, where] of Object.entries(untouched())) before[table] = await rowsOf(table, where);
    await privacy.keys.eraseSubject(team, subjectHash());
    await privacy.keys.eraseSubject(team, privacy.hashSubject(team, contactSubject(ids.ada)));

    const counts = await scrubErasedSubject(env.database, {
      teamId: team,
      address: ada.email.toUpperCase(),
      tag: subjectTag(subjectHash()),
      contactId: ids.ada,
    });

    expect(counts).toMatchObject({
      emails: 3,
      email_attachments: 1,
      email_link_clicks: 1,
      inbound_emails: 2,
      inbound_email_attachments: 1,
      contacts: 1,
      broadcasts: 0,
      broadcast_recipients: 1,
      contact_import_errors: 2,
      // The payload naming her and every reply of it; of the delivery whose reply alone named her, the reply.
      webhook_deliveries: 1,
      webhook_attempts: 2,
      automation_run_steps: 4,
      audit_contact_addresses: 1,
      suppressions: 1,
      api_idempotency_keys: 1,
      projection_operations: 1,
    });
    expect(counts.audit_refs).toBeGreaterThan(0);
    expect(await rowsHolding(env.database, canaries, ofOtherTeam)).toEqual([]);

    const [queued] = await store.readStream(emailStream(ids.toBoth));
    const [email] = await rowsOf("emails", sql`id = ${ids.toBoth}`);
    expect(email).toMatchObject({ to_addresses: [placeholder(), cy], subject: (queued!.data as { subject: string }).subject });
    expect(email!.subject).toBe(contentPlaceholder("email", ids.toBoth));
    expect(await rowsOf("contacts", sql`id = ${ids.ada}`)).toMatchObject([
      { email: placeholder(), first_name: placeholder(), last_name: placeholder(), properties: {} },
    ]);
    expect(await rowsOf("suppressions", sql`team_id = ${team}`)).toMatchObject([{ email: placeholder(), id: ids.suppression }]);
    expect(await rowsOf("api_idempotency_keys", sql`team_id = ${team}`)).toMatchObject([
      { path: `/contacts/${placeholder()}`, response_body: JSON.stringify({ object: "contact", email: placeholder() }) },
    ]);
  });

  it("leaves the other recipients' rows, the counts and the other team as they were", async () => {
    for (const [table, where] of Object.entries(untouched())) {
      expect(before[table], table).not.toEqual([]);
      expect(await rowsOf(table, where), table).toEqual(before[table]);
    }
    expect(await rowsOf("emails", sql`id = ${ids.replyToAda}`)).toMatchObject([{ reply_to: [placeholder()], subject: "cyorder" }]);
    const recipients = await rowsOf("broadcast_recipients", sql`broadcast_id = ${ids.broadcast}`);
    expect(recipients.map((r) => r.email).sort()).toEqual([cy, placeholder()].sort());
    const [clicks] = await sql<{ clicks: string }>`SELECT clicks::text AS clicks FROM email_link_clicks WHERE email_id = ${ids.toBoth}`
      .execute(env.database.db)
      .then((r) => r.rows);
    expect(clicks).toEqual({ clicks: "1" });
    expect(await rowsOf("contact_imports", sql`id = ${ids.importNamingAda}`)).toMatchObject([
      { status: "completed", counts: { failed: 2 } },
    ]);
    const others = await rowsHolding(env.database, [ada.email], (row) => !ofOtherTeam(row));
    expect(others.map((r) => r.table.replace(/_v\d+$/, ""))).toEqual(
      expect.arrayContaining(["public.contacts", "public.emails", "public.audit_refs"]),
    );
  });

  it("leaves each read model as a rebuild from the opened events would make it, but for ids the audit index found in shredded content", async () => {
    for (const projection of productProjections) {
      const result = await verifyProjection({ store, database: env.database, projection });
      if (projection.name !== "audit") {
        expect({ projection: projection.name, differences: result.differences }).toEqual({ projection: projection.name, differences: 0 });
        continue;
      }
      // A run's output held an email id: the key of a row a replay no longer makes, since the content that
      // named it now opens to `{}`.
      expect(result.rows.map((r) => ({ table: r.table, replay: r.replay, key: r.key.key }))).toEqual([
        { table: "audit_refs", replay: null, key: ids.toBoth },
      ]);
    }
  }, 120_000);

  it("changes nothing more when repeated", async () => {
    const again = await scrubErasedSubject(env.database, {
      teamId: team,
      address: ada.email,
      tag: subjectTag(subjectHash()),
      contactId: ids.ada,
    });
    expect(Object.entries(again).filter(([, rows]) => rows > 0)).toEqual([]);
  });

  it("reaches every row of a team with more of them than a page holds", async () => {
    const big = randomUUID();
    await sql`
      INSERT INTO emails (id, team_id, from_address, to_addresses, cc, bcc, reply_to, subject, html, text, tags, last_event, created_at)
      SELECT gen_random_uuid(), ${big}, 'shop@sender.test', jsonb_build_array(${ada.email}::text), '[]', '[]', '[]', 'bulk ' || n, NULL, NULL, '[]',
             'queued', now() - n * interval '1 second'
        FROM generate_series(1, 2500) AS n`.execute(env.database.db);
    const counts = await scrubErasedSubject(env.database, { teamId: big, address: ada.email, tag: "bulk" });
    expect(counts.emails).toBe(2500);
    expect(await rowsHolding(env.database, [ada.email, "bulk "], ofOtherTeam)).toEqual([]);
  }, 120_000);

  it("reaches a rebuild's shadow tables, which would otherwise bring the values back at the switch", async () => {
    await prepareShadow(env.database, emailsProjection);
    const shadow = `emails_v${emailsProjection.version}_next`;
    const emailId = randomUUID();
    await sql`
      INSERT INTO ${sql.table(shadow)} (id, team_id, from_address, to_addresses, cc, bcc, reply_to, subject, html, text, tags, last_event, created_at)
      VALUES (${emailId}, ${team}, 'shop@sender.test', ${JSON.stringify([ada.email])}::jsonb, '[]', '[]', '[]', ${adaContent.order}, NULL, NULL, '[]',
              'queued', now())`.execute(env.database.db);

    const counts = await scrubErasedSubject(env.database, { teamId: team, address: ada.email, tag: subjectTag(subjectHash()) });

    expect(counts[shadow]).toBe(1);
    expect(await rowsOf(shadow, sql`id = ${emailId}`)).toMatchObject([
      { to_addresses: [placeholder()], subject: contentPlaceholder("email", emailId) },
    ]);
    expect(await rowsHolding(env.database, canaries, ofOtherTeam)).toEqual([]);
  });
});
