import { Resend } from "resend";
import { afterAll, beforeAll } from "vitest";
import { raiseBootstrapTeamRateLimit } from "./rateLimit.js";
import { startTestServer, type TestServer } from "./testServer.js";
import { startWebhookReceiver, type WebhookReceiver } from "./webhookReceiver.js";

export type EventType = Parameters<Resend["webhooks"]["create"]>[0]["events"][number];

/** A server, a loopback receiver for its webhooks, and the SDK calls the webhook tests make; set in `beforeAll`. */
export interface WebhookSuite {
  receiver: WebhookReceiver;
  server: TestServer;
  resend: Resend;
  /** Creates a webhook; the test fails unless it is created. */
  createWebhook(endpoint: string, events: EventType[]): Promise<{ id: string; signing_secret: string }>;
  /** Sends Ann an email, tagged when `tags` are given; resolves with its id. */
  send(tags?: { name: string; value: string }[]): Promise<string>;
}

/**
 * The webhook tests' deployment, for the describe block it is called in: a server sending from any address,
 * on `env`, with its bootstrap team's rate limit raised, and a receiver on loopback; started in `beforeAll`,
 * stopped in `afterAll`.
 */
export function webhookSuite(env: Record<string, string>): WebhookSuite {
  const suite = {} as WebhookSuite;
  beforeAll(async () => {
    suite.receiver = await startWebhookReceiver();
    const server = (suite.server = await startTestServer({ TIDINGS_ALLOW_UNVERIFIED_FROM: "true", ...env }));
    await raiseBootstrapTeamRateLimit(server.serving.runtime);
    const resend = (suite.resend = new Resend(server.token, { baseUrl: server.url }));
    suite.createWebhook = async (endpoint, events) => {
      const { data, error } = await resend.webhooks.create({ endpoint, events });
      if (error) throw new Error(`webhook create: ${error.name}: ${error.message}`);
      return data!;
    };
    suite.send = async (tags) => {
      const { data, error } = await resend.emails.send({
        from: "Acme <hello@acme.test>",
        to: "ann@example.test",
        subject: "Hello",
        html: "<p>Hi</p>",
        ...(tags ? { tags } : {}),
      });
      if (error) throw new Error(`send: ${error.name}: ${error.message}`);
      return data!.id;
    };
  });
  afterAll(async () => {
    await suite.server?.stop();
    await suite.receiver?.close();
  });
  return suite;
}
