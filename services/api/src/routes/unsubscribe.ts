import { z } from "zod";
import { formatTimestamp } from "@tidings/core";
import { findContact, updateContact, updateContactTopics } from "@tidings/audience";
import { effectiveSubscription } from "@tidings/domain";
import type { EventMetadata, Position } from "@tidings/eventstore";
import { readUnsubscribeToken, type UnsubscribeClaims } from "@tidings/mail";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { ApiRoutes } from "../app.js";
import { formFields } from "../formFields.js";
import { pageResponse } from "../mediaResponses.js";
import { goneContactPage, invalidLinkPage, preferencesPage, unsubscribedPage } from "../preferencePages.js";
import { preferenceTopics } from "../queries/topics.js";
import { routerOptions } from "../router.js";
import type { ApiServices } from "../services.js";

const params = z.object({ token: z.string().max(routerOptions.maxParamLength).describe("The signed token of an unsubscribe link.") });
const pages = {
  200: pageResponse("The contact's preferences, or what was done."),
  400: pageResponse("A page saying the link is not valid."),
};
const errors = { service_unavailable: "The read models are not created yet (a new install whose projector has not started)." };
const common = { tags: ["unsubscribe"], security: [], params, errors };

/** The page's form, and RFC 8058's one-click post; the parser gives every field as a list of its values. */
const preferencesForm = z
  .object({
    "List-Unsubscribe": z.array(z.string()).optional().describe("`One-Click`, from a mail client (RFC 8058): unsubscribe at once."),
    action: z
      .array(z.enum(["save", "unsubscribe_all"]))
      .optional()
      .describe("The button pressed on the page."),
    topic: z.array(z.string()).optional().describe("The ids of the topics left checked, when saving."),
  })
  .optional();

/**
 * `{PUBLIC_URL}/unsubscribe/<token>`: the preference page a recipient reaches from an email, and the RFC
 * 8058 one-click target. The token is the only credential; it is checked by its signature alone.
 */
export function unsubscribeRoutes(services: ApiServices): ApiRoutes {
  const send = (reply: FastifyReply, status: number, body: string) =>
    reply.code(status).type("text/html; charset=utf-8").header("cache-control", "no-store").send(body);
  const claimsOf = (token: string) => (services.secret ? readUnsubscribeToken(services.secret, token, services.clock.now()) : undefined);
  const metadata = (request: FastifyRequest, claims: UnsubscribeClaims): EventMetadata => ({
    teamId: claims.teamId,
    actor: `contact:${claims.contactId}`,
    requestId: request.id,
    correlationId: request.id,
    causationId: request.id,
    occurredAt: formatTimestamp(services.clock.now()),
  });

  /** Read-your-writes, as for the API: the contact's GET right after shows the change. */
  const settled = async (write: Promise<{ position?: Position }>) => {
    const { position } = await write;
    if (position) await services.waitFor(position);
  };

  async function render(reply: FastifyReply, claims: UnsubscribeClaims, saved = false) {
    const contact = await findContact(services.store, claims.teamId, claims.contactId);
    if (!contact) return send(reply, 200, goneContactPage());
    const topics = (await preferenceTopics(services.database, claims.teamId, claims.topicId)).map((t) => ({
      id: t.id,
      name: t.name,
      description: t.description,
      subscription: effectiveSubscription(contact.topics[t.id], { defaultSubscription: t.default_subscription }),
    }));
    return send(reply, 200, preferencesPage({ email: contact.email, unsubscribed: contact.unsubscribed, topics, saved }));
  }

  return (app) => {
    // Browsers and mail clients post forms; a JSON body here is no client of ours, and gets 415.
    app.removeContentTypeParser("application/json");
    app.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string" }, (_request, body, done) =>
      done(null, formFields(body as string)),
    );

    app.get("/unsubscribe/:token", { schema: { ...common, response: pages } }, async (request, reply) => {
      const claims = claimsOf(request.params.token);
      if (!claims) return send(reply, 400, invalidLinkPage());
      return render(reply, claims);
    });

    app.post(
      "/unsubscribe/:token",
      { schema: { ...common, consumes: ["application/x-www-form-urlencoded"], body: preferencesForm, response: pages } },
      async (request, reply) => {
        const claims = claimsOf(request.params.token);
        if (!claims) return send(reply, 400, invalidLinkPage());
        const form = request.body ?? {};
        const contact = await findContact(services.store, claims.teamId, claims.contactId);
        if (!contact) return send(reply, 200, goneContactPage());
        const events = metadata(request, claims);
        const oneClick = form["List-Unsubscribe"]?.includes("One-Click");
        const action = form.action?.[0];
        if (oneClick && claims.topicId) {
          // RFC 8058 from an email sent for one topic: leave that topic, keep the rest.
          await settled(
            updateContactTopics(services, claims.teamId, contact.contactId, [{ topicId: claims.topicId, subscription: "opt_out" }], events),
          );
          return send(reply, 200, unsubscribedPage());
        }
        if (oneClick || action === "unsubscribe_all") {
          await settled(updateContact(services, claims.teamId, contact.contactId, { unsubscribed: true }, {}, events));
          return send(reply, 200, unsubscribedPage());
        }
        if (action !== "save") return send(reply, 400, invalidLinkPage());
        const checked = new Set(form.topic ?? []);
        const offered = await preferenceTopics(services.database, claims.teamId, claims.topicId);
        const choices = offered.map((t) => ({
          topicId: t.id,
          subscription: checked.has(t.id) ? ("opt_in" as const) : ("opt_out" as const),
        }));
        if (choices.length > 0) await settled(updateContactTopics(services, claims.teamId, contact.contactId, choices, events));
        await settled(updateContact(services, claims.teamId, contact.contactId, { unsubscribed: false }, {}, events));
        return render(reply, claims, true);
      },
    );
  };
}
