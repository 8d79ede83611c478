import { z } from "zod";
import type { ApiInstance, ApiRoutes } from "../app.js";
import { pageResponse } from "../mediaResponses.js";
import type { ApiServices } from "../services.js";
import { sharedEmails } from "../shares/sharedEmailContent.js";
import { sendSharedFrame, sendSharedPage } from "../shares/sharedEmailPage.js";
import { shareLinks } from "../shares/shareLinks.js";

const query = z.object({ token: z.string().max(2048).optional().describe("The signed token of a share link.") });
const pages = (shown: string) => ({
  200: pageResponse(shown),
  404: pageResponse("A page saying the link does not work (incomplete, changed, or never made here)."),
  410: pageResponse("A page saying the link was revoked or has expired, or that the email's content is gone."),
});
const errors = { service_unavailable: "The read models are not created yet (a new install whose projector has not started)." };
const common = { tags: ["shared"], security: [], querystring: query, errors };

/**
 * `{PUBLIC_URL}/shared?token=<token>`: the page a share link opens (docs/wire-compatibility.md §6.1), for
 * anyone holding the link, without a key. The page shows the headers and frames `/shared/content`,
 * which serves the body sandboxed.
 */
export function sharedEmailRoutes(services: ApiServices): ApiRoutes {
  const resolve = sharedEmails(services, shareLinks({ secret: services.secret, publicUrl: services.config.PUBLIC_URL }));

  return (app: ApiInstance) => {
    app.get(
      "/shared",
      {
        schema: {
          ...common,
          summary: "A shared email's page",
          response: pages("The email's subject, sender, recipients, date, and its body in a sandboxed frame."),
        },
      },
      async (request, reply) => {
        const { token } = request.query;
        // Relative, so it resolves under whatever path PUBLIC_URL has: /shared → /shared/content.
        const frameSrc = `shared/content?token=${encodeURIComponent(token ?? "")}`;
        return sendSharedPage(reply, await resolve(token), frameSrc);
      },
    );

    app.get(
      "/shared/content",
      {
        schema: {
          ...common,
          summary: "A shared email's body, sandboxed",
          response: pages("The email's html (or its text), for the page's frame."),
        },
      },
      async (request, reply) => sendSharedFrame(reply, await resolve(request.query.token)),
    );
  };
}
