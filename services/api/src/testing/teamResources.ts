import type { ApiInstance } from "../app.js";
import type { TestKey } from "./testServices.js";

/**
 * One of each of a team's resources, created through the API with `key`, each named with `marker`:
 * the id of each by the first segment of its routes' paths (`/emails`), so that route-wide tests put
 * real ids in the paths they call. `apiKeyId` is the key to name under `/api-keys`.
 */
export async function createTeamResources(
  app: ApiInstance,
  key: TestKey,
  marker: string,
  apiKeyId: string,
): Promise<Record<string, string>> {
  const call = async (method: "POST" | "GET", url: string, payload?: unknown) => {
    const res = await app.inject({
      method,
      url,
      headers: { ...key.headers, "content-type": "application/json" },
      payload: JSON.stringify(payload ?? {}),
    });
    if (res.statusCode >= 300) throw new Error(`seeding ${url}: ${res.statusCode} ${res.body}`);
    return res;
  };
  const id = async (url: string, payload: unknown) => ((await call("POST", url, payload)).json() as { id: string }).id;
  const template = await id("/templates", { name: marker, html: `<p>${marker}</p>` });
  const email = await id("/emails", { from: "a@example.com", to: "b@example.com", subject: marker, html: "<p>x</p>" });
  const webhook = await id("/webhooks", { endpoint: `https://${marker}.example.com/in`, events: ["email.sent"] });
  const logId = (await call("GET", "/api-keys")).headers["x-request-id"] as string;
  const domain = await id("/domains", { name: `${marker}.example.test` });
  const property = await id("/contact-properties", { key: "marker", type: "string", fallback_value: marker });
  const segment = await id("/segments", { name: marker });
  const topic = await id("/topics", { name: marker.slice(0, 50), default_subscription: "opt_in" });
  const contact = await id("/contacts", {
    email: `${marker}@example.com`,
    first_name: marker,
    segments: [{ id: segment }],
    topics: [{ id: topic, subscription: "opt_out" }],
  });
  const broadcast = await id("/broadcasts", { segment_id: segment, from: "a@example.com", subject: marker, html: `<p>${marker}</p>` });
  const suppression = await id("/suppressions", { email: `${marker}@suppressed.example.com` });
  const event = await id("/events", { name: `${marker}.happened`, schema: { marker: "string" } });
  const automation = await id("/automations", {
    name: marker,
    steps: [{ key: "start", type: "trigger", config: { event_name: `${marker}.happened` } }],
    connections: [],
  });
  return {
    "/events": event,
    "/automations": automation,
    "/api-keys": apiKeyId,
    "/templates": template,
    "/emails": email,
    "/logs": logId,
    "/contact-properties": property,
    "/segments": segment,
    "/audiences": segment,
    "/topics": topic,
    "/contacts": contact,
    "/suppressions": suppression,
    "/domains": domain,
    "/webhooks": webhook,
    "/broadcasts": broadcast,
  };
}
