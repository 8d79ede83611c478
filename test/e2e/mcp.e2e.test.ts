import { setTimeout as sleep } from "node:timers/promises";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { simpleParser } from "mailparser";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { SmtpSink } from "@tidings/testkit";
import { startMailingServer, type MailingServer } from "../support/mailingServer.js";

type ToolResult = Awaited<ReturnType<Client["callTool"]>>;

/** The MCP server at `/mcp` through the official SDK's client, a whole server and its sagas, into a loopback SMTP sink. */
describe("the MCP server through the MCP SDK's client", () => {
  let mailing: MailingServer;
  let sink: SmtpSink;
  let client: Client;
  const clients: Client[] = [];

  const connect = async (token: string) => {
    const connected = new Client({ name: "tidings-e2e", version: "1.0.0" });
    await connected.connect(
      new StreamableHTTPClientTransport(new URL("/mcp", mailing.server.url), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    clients.push(connected);
    return connected;
  };

  /** The API's JSON a tool returned, from between the untrusted-data markers when it has them. */
  const json = (result: ToolResult) => {
    const text = (result.content as { type: string; text: string }[])[0]!.text;
    const marked = /<untrusted-data tag="([0-9a-f]+)">\n([\s\S]*)\n<\/untrusted-data tag="\1">$/.exec(text);
    return JSON.parse(marked ? marked[2]! : text) as Record<string, unknown> & { id: string; data: Record<string, unknown>[] };
  };
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args });
    if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
    return result;
  };

  beforeAll(async () => {
    mailing = await startMailingServer();
    sink = mailing.sink;
    client = await connect(mailing.server.token);
  }, 180_000);
  afterAll(async () => {
    for (const c of clients) await c.close();
    await mailing?.stop();
  });
  beforeEach(() => sink.reset());

  it("lists the tools, each saying whether it reads or destroys, the destructive ones in their description too", async () => {
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThanOrEqual(40);
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of ["send_email", "send_batch_emails", "list_emails", "get_email_timeline", "get_domain", "verify_domain"])
      expect(byName.has(name)).toBe(true);
    for (const name of ["create_contact", "create_segment", "create_topic", "create_contact_property", "create_broadcast"])
      expect(byName.has(name)).toBe(true);
    for (const name of [
      "get_broadcast",
      "preview_broadcast",
      "send_broadcast",
      "schedule_broadcast",
      "cancel_broadcast",
      "create_template",
    ])
      expect(byName.has(name)).toBe(true);
    for (const name of ["list_webhook_deliveries", "add_suppression", "list_logs"]) expect(byName.has(name)).toBe(true);
    for (const tool of tools) {
      expect(typeof tool.annotations?.readOnlyHint, tool.name).toBe("boolean");
      expect(typeof tool.annotations?.destructiveHint, tool.name).toBe("boolean");
      expect(tool.annotations!.readOnlyHint && tool.annotations!.destructiveHint, tool.name).toBe(false);
      expect(tool.description!.startsWith("Destructive"), tool.name).toBe(tool.annotations!.destructiveHint);
    }
    expect(byName.get("list_emails")!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true });
    expect(byName.get("send_email")!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, openWorldHint: true });
    expect(byName.get("send_broadcast")!.annotations).toMatchObject({ destructiveHint: true });
    expect(byName.get("delete_contact")!.annotations).toMatchObject({ destructiveHint: true, idempotentHint: true });
    expect(byName.get("create_contact")!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(byName.get("schedule_broadcast")!.inputSchema.required).toEqual(expect.arrayContaining(["id", "scheduled_at"]));
  });

  it("sends an email, and reads its timeline once the sink has it", async () => {
    const sent = json(
      await call("send_email", { from: "Agent <agent@acme.test>", to: "reader@example.test", subject: "From an agent", html: "<p>Hi</p>" }),
    );
    const [message] = await sink.waitFor((r) => r.length >= 1);
    expect(message!.envelope.to).toEqual(["reader@example.test"]);
    expect((await simpleParser(message!.raw)).subject).toBe("From an agent");

    const email = await call("get_email", { id: sent.id });
    expect(email._meta?.["tidings.dev/untrusted-content"]).toBe(true);
    expect(json(email)).toMatchObject({ id: sent.id, subject: "From an agent", to: ["reader@example.test"] });

    let types: unknown[] = [];
    for (const deadline = Date.now() + 60_000; Date.now() < deadline && !types.includes("EmailDelivered"); await sleep(250))
      types = json(await call("get_email_timeline", { id: sent.id })).data.map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(["EmailQueued", "EmailSent", "EmailDelivered"]));
  });

  it("creates contacts in a segment and sends a broadcast to it: one email per contact", async () => {
    const segment = json(await call("create_segment", { name: "Agents' readers" }));
    for (const name of ["ann", "bob"])
      await call("create_contact", { email: `${name}@readers.test`, first_name: name, segments: [{ id: segment.id }] });
    await call("create_contact", { email: "carl@elsewhere.test" });
    expect(json(await call("list_segment_contacts", { id: segment.id })).data.map((c) => c.email)).toHaveLength(2);

    const draft = json(
      await call("create_broadcast", {
        segment_id: segment.id,
        from: "News <news@acme.test>",
        subject: "Agent news",
        html: "<p>Hi {{{contact.first_name|there}}}</p>",
      }),
    );
    expect(json(await call("get_broadcast", { id: draft.id }))).toMatchObject({ status: "draft", subject: "Agent news" });
    expect(json(await call("preview_broadcast", { id: draft.id, contact: "ann@readers.test" }))).toMatchObject({
      to: "ann@readers.test",
      subject: "Agent news",
      html: "<p>Hi ann</p>",
    });
    await call("send_broadcast", { id: draft.id });

    const messages = await sink.waitFor((r) => r.length >= 2);
    await sleep(500);
    expect(sink.received.map((m) => m.envelope.to[0]).sort()).toEqual(["ann@readers.test", "bob@readers.test"]);
    const ann = await simpleParser(messages.find((m) => m.envelope.to[0] === "ann@readers.test")!.raw);
    expect(ann.subject).toBe("Agent news");
    expect(ann.html).toContain("Hi ann");

    const later = json(await call("create_broadcast", { segment_id: segment.id, from: "news@acme.test", subject: "Later", text: "Soon" }));
    await call("schedule_broadcast", { id: later.id, scheduled_at: "in 1 hour" });
    expect(json(await call("get_broadcast", { id: later.id }))).toMatchObject({ status: "scheduled" });
    await call("cancel_broadcast", { id: later.id });
    expect(json(await call("get_broadcast", { id: later.id }))).toMatchObject({ status: "draft" });
  });

  it("sends a batch, whose array goes under `emails`, and refuses a batch that is not an array naming the field", async () => {
    const batch = json(
      await call("send_batch_emails", {
        emails: ["one", "two"].map((n) => ({ from: "a@acme.test", to: `${n}@batch.test`, subject: n, text: n })),
        idempotency_key: "mcp-batch-1",
      }),
    );
    expect(batch.data).toHaveLength(2);
    await sink.waitFor((r) => r.length >= 2);
    const refused = await client.callTool({ name: "send_batch_emails", arguments: { emails: "not a list" } });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toMatch(/Input validation error.*emails/);
  });

  it("gives a sending-access key only the sending tools, and refuses it the others", async () => {
    const { data, error } = await mailing.resend.apiKeys.create({ name: "agent sender", permission: "sending_access" });
    expect(error).toBeNull();
    const sender = await connect(data!.token);
    expect((await sender.listTools()).tools.map((t) => t.name).sort()).toEqual(["send_batch_emails", "send_email"]);

    const refused = await sender.callTool({ name: "list_contacts", arguments: {} });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toMatch(/list_contacts not found/);

    const sent = await sender.callTool({
      name: "send_email",
      arguments: { from: "a@acme.test", to: "sender@example.test", subject: "s", text: "t" },
    });
    expect(sent.isError).toBeFalsy();
    await sink.waitFor((r) => r.some((m) => m.envelope.to[0] === "sender@example.test"));
  });
});
