import { z } from "zod";
import { readClickToken, readOpenToken } from "@tidings/mail";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { ApiRoutes } from "../app.js";
import { bytesResponse, pageResponse } from "../mediaResponses.js";
import { recordEngagement, type TrackingRequest } from "../handlers/recordEngagement.js";
import type { ApiServices } from "../services.js";
import { escapeHtml } from "@tidings/domain";

/** A click token carries its link's URL, which may be long: the wildcard is not held to the router's parameter length. */
const params = z.object({ "*": z.string().max(16_000).describe("The signed token of a tracked link or open pixel.") });
const tags = ["tracking"];

/** A transparent 1×1 GIF. */
const pixel = Buffer.from("R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==", "base64");

const trackingRequest = (request: FastifyRequest): TrackingRequest => ({
  requestId: request.id,
  ipAddress: request.ip || null,
  userAgent: request.headers["user-agent"] ?? null,
});

/**
 * The links and the open pixel of tracked emails (`/c/<token>`, `/o/<token>`), under each domain's
 * tracking subdomain or TRACKING_BASE_URL. The token is the only credential, checked by its signature
 * alone. The redirect and the pixel are answered even when the event cannot be recorded: a recipient's
 * click must reach its page whatever state the stores are in. A HEAD (link checkers' favourite) records
 * nothing.
 */
export function trackingRoutes(services: ApiServices): ApiRoutes {
  const record = async (request: FastifyRequest, emailId: string, engagement: Parameters<typeof recordEngagement>[2]) => {
    if (request.method === "HEAD") return;
    await recordEngagement(services, emailId, engagement, trackingRequest(request)).catch((error: unknown) =>
      request.log.error({ err: error, emailId }, "recording an open or click failed"),
    );
  };
  const noStore = (reply: FastifyReply) => reply.header("cache-control", "no-store, max-age=0").header("referrer-policy", "no-referrer");

  return (app) => {
    app.get(
      "/o/*",
      {
        schema: {
          tags,
          summary: "The open-tracking pixel",
          security: [],
          params,
          response: { 200: bytesResponse("A 1×1 transparent GIF, for a token that is not valid too.", "image/gif") },
        },
      },
      async (request, reply) => {
        const emailId = services.secret ? readOpenToken(services.secret, request.params["*"]) : undefined;
        if (emailId) await record(request, emailId, { type: "RecordEmailOpened" });
        // A broken image in the recipient's inbox helps nobody: a bad token gets the pixel too, unrecorded.
        return noStore(reply).code(200).type("image/gif").send(pixel);
      },
    );

    app.get(
      "/c/*",
      {
        schema: {
          tags,
          summary: "A tracked link: records the click and redirects to the link's target",
          security: [],
          params,
          response: {
            302: {
              ...pageResponse("A redirect to the link's target, with a page linking to it."),
              headers: { location: z.string().describe("The link's target.") },
            },
            404: pageResponse("A page saying the link is not valid."),
          },
        },
      },
      async (request, reply) => {
        const claims = services.secret ? readClickToken(services.secret, request.params["*"]) : undefined;
        if (!claims)
          return noStore(reply)
            .code(404)
            .type("text/html; charset=utf-8")
            .send("<!doctype html><title>Link not valid</title><p>This link is not valid.</p>");
        await record(request, claims.emailId, { type: "RecordEmailClicked", link: claims.url, linkIndex: claims.linkIndex });
        const target = escapeHtml(claims.url);
        return noStore(reply)
          .code(302)
          .header("location", claims.url)
          .type("text/html; charset=utf-8")
          .send(`<!doctype html><title>Redirecting</title><p>Redirecting to <a href="${target}">${target}</a>.</p>`);
      },
    );
  };
}
