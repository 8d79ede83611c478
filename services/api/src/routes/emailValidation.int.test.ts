import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiTestFile } from "../testing/apiTestFile.js";
import { anEmail as email, emailSender } from "../testing/emailRequests.js";
import { jsonCaller, wireError as error } from "../testing/jsonCalls.js";

const file = apiTestFile("emails");
const { call } = file;
const send = emailSender(file);
let loopback: Server;
let loopbackUrl: string;

beforeAll(async () => {
  loopback = createServer((_req, res) => res.end("secret of the operator's network"));
  await new Promise<void>((resolve) => loopback.listen(0, "127.0.0.1", resolve));
  loopbackUrl = `http://127.0.0.1:${(loopback.address() as { port: number }).port}/internal.txt`;
});
afterAll(() => loopback?.close());

const expectRefused = async (overrides: Record<string, unknown>, status: number, name: string, message: string | RegExp) => {
  const res = await send(overrides);
  expect({ status: res.status, body: res.body }).toEqual(error(status, name, message));
};

describe("POST /emails validation", () => {
  it("refuses a from that is neither a@b.c nor Name <a@b.c>", () =>
    expectRefused(
      { from: "Acme hello@acme.test" },
      422,
      "invalid_from_address",
      /`from`.*`email@example.com` or `Name <email@example.com>`/,
    ));

  it("requires to", () => expectRefused({ to: undefined }, 422, "missing_required_field", "Missing `to` field."));

  it("refuses 51 recipients in to", () =>
    expectRefused(
      { to: Array.from({ length: 51 }, (_, i) => `u${i}@example.test`) },
      422,
      "validation_error",
      "Too many recipients in `to`: at most 50.",
    ));

  it("refuses an invalid cc address, naming the field", () =>
    expectRefused({ cc: "nobody" }, 422, "validation_error", /^Invalid `cc` field/));

  it("requires a subject without a template", () =>
    expectRefused({ subject: undefined }, 422, "missing_required_field", "Missing `subject` field."));

  it("refuses a template together with html", () =>
    expectRefused({ template: { id: "welcome" } }, 422, "validation_error", "The `template` field cannot be used together with `html`."));

  it("refuses a tag with a space", () =>
    expectRefused({ tags: [{ name: "has space", value: "x" }] }, 422, "validation_error", /^Invalid `tags` field/));

  it("refuses a header value with a line break", () =>
    expectRefused(
      { headers: { "X-Note": "a\r\nBcc: victim@example.test" } },
      422,
      "validation_error",
      /`X-Note` must not contain line breaks/,
    ));

  it("refuses a header Tidings sets itself", () =>
    expectRefused({ headers: { "Message-ID": "<forged@example.test>" } }, 422, "validation_error", /`Message-ID` is set by Tidings/));

  it("refuses an attachment with neither content nor path", () =>
    expectRefused(
      { attachments: [{ filename: "a.txt" }] },
      422,
      "invalid_attachment",
      "Invalid `attachments[0]`: it needs `content` or `path`.",
    ));

  it("refuses attachment content that is not base64", () =>
    expectRefused({ attachments: [{ filename: "a.txt", content: "%%%" }] }, 422, "invalid_attachment", /`content` must be base64/));

  it("refuses attachments over 40 MB after base64", () => {
    const half = "A".repeat(20 * 1024 * 1024 + 4);
    return expectRefused(
      {
        attachments: [
          { filename: "a.bin", content: half },
          { filename: "b.bin", content: half },
        ],
      },
      422,
      "invalid_attachment",
      "Attachments exceed the limit of 40 MB per email (after base64 encoding).",
    );
  });

  it("refuses to fetch a path attachment from a loopback address", () =>
    expectRefused(
      { attachments: [{ path: loopbackUrl }] },
      422,
      "invalid_attachment",
      /private, loopback and link-local addresses are not fetched/,
    ));

  it("refuses a host name that resolves to loopback", () =>
    expectRefused(
      { attachments: [{ path: loopbackUrl.replace("127.0.0.1", "localhost") }] },
      422,
      "invalid_attachment",
      /attachments\[0\]\.path/,
    ));

  it("refuses a scheduled_at that is no date", () =>
    expectRefused({ scheduled_at: "someday maybe" }, 422, "validation_error", /^Invalid `scheduled_at` field/));

  it("refuses a scheduled_at more than 30 days ahead", () =>
    expectRefused(
      { scheduled_at: "in 31 days" },
      422,
      "validation_error",
      "The `scheduled_at` field must be at most 30 days in the future.",
    ));

  it("refuses an unknown template", () =>
    expectRefused({ html: undefined, template: { id: "no-such-template" } }, 422, "validation_error", /no-such-template/));

  it("refuses a sending key restricted to another domain of the team", async () => {
    const domain = await call("POST", "/domains", { name: "restricted-to.example.test" });
    const restricted = await file.testServices.aKey("emails-team", {
      permission: "sending_access",
      domainId: domain.body.id,
      name: "restricted",
    });
    const res = await send({}, restricted);
    expect(res.status).toBe(403);
    expect(res.body.name).toBe("validation_error");
  });

  it("refuses every from when TIDINGS_ALLOW_UNVERIFIED_FROM is false, naming the domain", async () => {
    const strict = await file.testServices.app({
      services: { ...file.testServices.services, config: { ...file.testServices.services.config, TIDINGS_ALLOW_UNVERIFIED_FROM: false } },
    });
    expect(
      await jsonCaller(
        () => strict,
        () => file.admin,
      )("POST", "/emails", email()),
    ).toEqual(error(403, "validation_error", /`acme.test` domain is not verified/));
  });
});
