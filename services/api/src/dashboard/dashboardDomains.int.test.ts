import { afterAll, describe, expect, it } from "vitest";
import { loadConfig, newId } from "@tidings/core";
import { startDnsResponder } from "@tidings/testkit";
import { apiTestFile } from "../testing/apiTestFile.js";
import { testApiSettings } from "../testing/testServices.js";
import { dashboardSession, form, formHeaders } from "../testing/dashboardSessions.js";

// A resolver of the test's own, with no records: a claim's check finds its TXT record missing, as it would be.
const dns = await startDnsResponder({});
afterAll(() => dns.close());

const file = apiTestFile("dashboard-domains", loadConfig({ ...testApiSettings, DNS_SERVERS: dns.address }));
const session = () => dashboardSession(file);
const uniqueName = () => `dash-${newId().slice(0, 8)}.example.test`;

async function aDomain(key = file.admin) {
  const { status, body } = await file.call("POST", "/domains", { name: uniqueName() }, key);
  expect(status).toBe(201);
  return body as { id: string; name: string };
}

/** The settings form's fields as the page has them: the hidden ones and the named inputs. */
function settingsFields(page: string): Record<string, string> {
  const form = page.slice(page.indexOf('id="domain-settings"'));
  const hidden = [...form.matchAll(/<input type="hidden" name="(shown_\w+)" value="([^"]*)"/g)].map(([, name, value]) => [name!, value!]);
  return Object.fromEntries(hidden);
}

/** The settings as the page showed them, chosen again: nothing changed. */
const chosenAsShown = (shown: Record<string, string>) =>
  Object.fromEntries(Object.entries(shown).map(([name, value]) => [name.replace(/^shown_/, ""), value]));

describe("the Domains pages", () => {
  it("verify a domain's DNS records again, which puts the domain and its records in pending", async () => {
    const domain = await aDomain();
    const browser = await session();
    const heading = (page: string) => /<h1>[^<]*<span class="badge[^"]*">([^<]+)<\/span><\/h1>/.exec(page)![1];
    const recordStates = (page: string) =>
      [...page.matchAll(/<td data-label="Status"><span><span class="badge[^"]*">([^<]+)<\/span>/g)].map((m) => m[1]);
    const before = await browser.get(`/dashboard/domains/${domain.id}`);
    expect(heading(before.body)).toBe("not started");
    const res = await browser.post(`/dashboard/domains/${domain.id}/verify`);
    expect(res).toMatchObject({ statusCode: 303, headers: { location: `/dashboard/domains/${domain.id}` } });
    const page = await browser.get(`/dashboard/domains/${domain.id}`);
    expect(page.body).toContain("Verification started");
    const got = (await file.call("GET", `/domains/${domain.id}`)).body as { status: string; records: unknown[] };
    expect(got.status).toBe("pending");
    expect(heading(page.body)).toBe("pending");
    expect(recordStates(page.body).length).toBeGreaterThanOrEqual(got.records.length);
    expect(new Set(recordStates(page.body))).toEqual(new Set(["pending"]));
  });

  it("change a domain's settings, sending only what changed, after which its records follow", async () => {
    const domain = await aDomain();
    const browser = await session();
    const page = await browser.get(`/dashboard/domains/${domain.id}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain("Copy the Receiving record");
    const shown = settingsFields(page.body);
    expect(shown).toMatchObject({ shown_open_tracking: "", shown_receiving: "", shown_sending: "on", shown_tls: "opportunistic" });
    // Changed elsewhere since the page was loaded: the form, which did not change it, leaves it so.
    expect((await file.call("PATCH", `/domains/${domain.id}`, { open_tracking: true })).status).toBe(200);

    const saved = await browser.post(`/dashboard/domains/${domain.id}/settings`, {
      ...shown,
      tracking_subdomain: "clicks",
      tls: "enforced",
      sending: "on",
      receiving: "on",
      click_tracking: "on",
    });
    expect(saved).toMatchObject({ statusCode: 303, headers: { location: `/dashboard/domains/${domain.id}` } });
    expect((await file.call("GET", `/domains/${domain.id}`)).body).toMatchObject({
      open_tracking: true,
      click_tracking: true,
      tracking_subdomain: "clicks",
      tls: "enforced",
      capabilities: { sending: "enabled", receiving: "enabled" },
    });
    const after = (await browser.get(`/dashboard/domains/${domain.id}`)).body;
    expect(after).toContain("The settings are saved.");
    expect(after).toContain("Copy the Receiving record&#39;s value");
    expect(after).toContain(`clicks.${domain.name}`);
    expect(settingsFields(after)).toMatchObject({ shown_open_tracking: "on", shown_receiving: "on", shown_tls: "enforced" });

    const now = settingsFields(after);
    const unchanged = await browser.post(`/dashboard/domains/${domain.id}/settings`, { ...now, ...chosenAsShown(now) });
    expect(unchanged.statusCode).toBe(303);
    expect((await browser.get(`/dashboard/domains/${domain.id}`)).body).toContain("Nothing was changed.");
  });

  it("refuse a bad tracking subdomain, or no capability, in the API's words naming the field, keeping what was typed", async () => {
    const domain = await aDomain();
    const browser = await session();
    const shown = settingsFields((await browser.get(`/dashboard/domains/${domain.id}`)).body);
    const refused = await browser.post(`/dashboard/domains/${domain.id}/settings`, {
      ...shown,
      ...chosenAsShown(shown),
      tracking_subdomain: "-bad-",
    });
    expect(refused.statusCode).toBe(422);
    expect(refused.body).toContain("The settings were not saved.");
    expect(refused.body).toContain("The `tracking_subdomain` field must be a DNS label");
    expect(refused.body).toContain('value="-bad-"');
    const none = await browser.post(`/dashboard/domains/${domain.id}/settings`, { ...shown, ...chosenAsShown(shown), sending: "" });
    expect(none.statusCode).toBe(422);
    expect(none.body).toContain("The `capabilities` field must keep at least one of `sending` and `receiving` enabled.");
    expect((await file.call("GET", `/domains/${domain.id}`)).body).toMatchObject({
      tracking_subdomain: "links",
      capabilities: { sending: "enabled" },
    });
  });

  it("add a domain with its region and return path, list it, and delete it", async () => {
    const browser = await session();
    expect((await browser.get("/dashboard/domains/new")).body).toMatch(/<option value="us-east-1"\s+selected>/);
    const name = uniqueName();
    const added = await browser.post("/dashboard/domains", { name, region: "eu-west-1", custom_return_path: "bounces" });
    expect(added.statusCode).toBe(303);
    const id = /\/dashboard\/domains\/([0-9a-f-]{36})$/.exec(String(added.headers.location))![1]!;
    expect((await file.call("GET", `/domains/${id}`)).body).toMatchObject({ name, region: "eu-west-1", custom_return_path: "bounces" });
    const page = (await browser.get(`/dashboard/domains/${id}`)).body;
    expect(page).toContain("The domain is added.");
    expect(page).toContain(`<code>bounces.${name}</code>`);
    expect((await browser.get("/dashboard/domains")).body).toContain(`<a href="/dashboard/domains/${id}">${name}</a>`);

    const bad = await browser.post("/dashboard/domains", { name: "not a domain", region: "eu-west-1" });
    expect(bad.statusCode).toBe(422);
    expect(bad.body).toContain("The domain was not added.");
    expect(bad.body).toContain("`name`");
    expect(bad.body).toContain('value="not a domain"');
    expect(bad.body).not.toContain("Claim not a domain");

    const deleted = await browser.post(`/dashboard/domains/${id}/delete`);
    expect(deleted.headers.location).toBe("/dashboard/domains");
    expect((await browser.get("/dashboard/domains")).body).toContain("The domain is deleted.");
    expect((await file.call("GET", `/domains/${id}`)).status).toBe(404);
  });

  it("offer a claim for a name another team holds, and show the claim's record, its failed check in words, and it in the list", async () => {
    const theirs = await aDomain(file.other);
    const browser = await session();
    const taken = await browser.post("/dashboard/domains", { name: theirs.name, region: "sa-east-1" });
    expect(taken.statusCode).toBe(403);
    expect(taken.body).toContain("registered by another team");
    expect(taken.body).toContain('action="/dashboard/domains/claim"');
    expect(taken.body).toContain(`<input type="hidden" name="name" value="${theirs.name}" />`);
    const own = await browser.post("/dashboard/domains", { name: (await aDomain()).name });
    expect(own.statusCode).toBe(403);
    expect(own.body).not.toContain('action="/dashboard/domains/claim"');

    const claimed = await browser.post("/dashboard/domains/claim", { name: theirs.name, region: "sa-east-1" });
    expect(claimed.statusCode).toBe(303);
    const placeholder = /\/dashboard\/domains\/([0-9a-f-]{36})\/claim$/.exec(String(claimed.headers.location))![1]!;
    const claim = (await file.call("GET", `/domains/${placeholder}/claim`)).body;
    expect(claim).toMatchObject({ name: theirs.name, region: "sa-east-1", status: "pending" });
    const page = (await browser.get(`/dashboard/domains/${placeholder}/claim`)).body;
    expect(page).toContain("The claim is made.");
    expect(page).toContain(`data-copy="${claim.record.value}"`);
    expect(page).toContain("Verify the claim");
    // The placeholder's id, as a domain's page, shows the claim until the claim makes it a domain.
    expect((await browser.get(`/dashboard/domains/${placeholder}`)).headers.location).toBe(`/dashboard/domains/${placeholder}/claim`);

    expect((await browser.post(`/dashboard/domains/${placeholder}/claim/verify`)).statusCode).toBe(303);
    const checked = (await browser.get(`/dashboard/domains/${placeholder}/claim`)).body;
    expect(checked).toContain("The claim&#39;s last check failed.");
    expect(checked).toContain(`No TXT record`);
    const list = (await browser.get("/dashboard/domains")).body;
    expect(list).toContain(`<a href="/dashboard/domains/${placeholder}/claim">${theirs.name}</a>`);
  });

  it("show another team's domain and claim as not found, and act on neither", async () => {
    const theirs = await aDomain(file.other);
    const claim = (await file.call("POST", "/domains/claim", { name: uniqueName() }, file.other)).body;
    const browser = await session();
    const domain = await browser.get(`/dashboard/domains/${theirs.id}`);
    expect(domain.statusCode).toBe(404);
    expect(domain.body).toContain("There is no domain with this id in your team.");
    expect((await browser.get(`/dashboard/domains/${claim.domain_id}`)).statusCode).toBe(404);
    const claimPage = await browser.get(`/dashboard/domains/${claim.domain_id}/claim`);
    expect(claimPage.statusCode).toBe(404);
    expect(claimPage.body).toContain("There is no domain claim with this id in your team.");
    expect(claimPage.body).not.toContain(claim.record.value);

    await browser.post(`/dashboard/domains/${theirs.id}/delete`);
    expect((await browser.get(`/dashboard/domains/${theirs.id}`)).body).toContain("The domain was not deleted.");
    expect((await file.call("GET", `/domains/${theirs.id}`, undefined, file.other)).status).toBe(200);
  });

  it("refuse a settings form without the session's CSRF token, changing nothing", async () => {
    const domain = await aDomain();
    const { cookie } = await session();
    const refused = await file.app.inject({
      method: "POST",
      url: `/dashboard/domains/${domain.id}/settings`,
      headers: { ...formHeaders, cookie },
      payload: form({ shown_tls: "opportunistic", tls: "enforced", sending: "on", shown_sending: "on" }),
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.body).toContain("This form was refused");
    expect(await file.call("GET", `/domains/${domain.id}`)).toMatchObject({ status: 200, body: { tls: "opportunistic" } });
  });
});
