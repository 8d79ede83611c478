import multipart from "@fastify/multipart";
import { z } from "zod";
import type { ApiRoutes } from "../app.js";
import { dashboardAssets } from "./assets.js";
import { dashboardScope, dashboardSchema } from "./dashboard.js";
import { apiKeyPages } from "./pages/apiKeys.js";
import { broadcastActions } from "./pages/broadcastActions.js";
import { broadcastDetailPage } from "./pages/broadcastDetail.js";
import { broadcastEditor } from "./pages/broadcastEditor.js";
import { broadcastPreviewFrame } from "./pages/broadcastPreview.js";
import { broadcastListPage } from "./pages/broadcasts.js";
import { automationPages } from "./pages/automations.js";
import { automationRunPage } from "./pages/automationRun.js";
import { contactDetailPage } from "./pages/contactDetail.js";
import { contactImportDetailPage } from "./pages/contactImportDetail.js";
import { contactImportPages } from "./pages/contactImports.js";
import { contactPropertyPages } from "./pages/contactProperties.js";
import { contactListPage } from "./pages/contacts.js";
import { domainClaimPages } from "./pages/domainClaims.js";
import { domainCreatePages } from "./pages/domainCreate.js";
import { domainDetailPages } from "./pages/domainDetail.js";
import { domainListPage } from "./pages/domains.js";
import { emailActions } from "./pages/emailActions.js";
import { emailDetailPage } from "./pages/emailDetail.js";
import { emailListPage } from "./pages/emails.js";
import { logPages } from "./pages/logs.js";
import { overviewPage } from "./pages/overview.js";
import { segmentPages } from "./pages/segments.js";
import { suppressionPages } from "./pages/suppressions.js";
import { templateDetailPages } from "./pages/templateDetail.js";
import { templatePreviewFrame } from "./pages/templatePreview.js";
import { templateListPage } from "./pages/templates.js";
import { webhookCreatePages } from "./pages/webhookCreate.js";
import { webhookDeliveryPages } from "./pages/webhookDeliveries.js";
import { webhookDetailPages } from "./pages/webhookDetail.js";
import { webhookListPage } from "./pages/webhooks.js";
import { topicPages } from "./pages/topics.js";
import { dashboardJs } from "./script.js";
import { DashboardSessions, type SessionOptions } from "./sessions.js";
import { signInRoutes } from "./signIn.js";
import { dashboardCss } from "./styles.js";

/**
 * The web dashboard at `/dashboard` (docs/dashboard.md): server-rendered pages that read and write through
 * the public API alone, on the key of a signed-in person's session.
 */
export function dashboardRoutes(options: SessionOptions & { publicUrl: string }): ApiRoutes {
  const sessions = new DashboardSessions(options);
  return async (app) => {
    // For the forms with a file (`Dashboard.upload`). The API route a file is passed on to caps its size,
    // and its answer ends the upload.
    await app.register(multipart, { limits: { files: 1, fields: 10, fileSize: Infinity } });
    const dashboard = dashboardScope(app, sessions, options.publicUrl);
    for (const [asset, type, text] of [
      [dashboardAssets.css, "text/css; charset=utf-8", dashboardCss],
      [dashboardAssets.js, "text/javascript; charset=utf-8", dashboardJs],
    ] as const) {
      const schema = {
        ...dashboardSchema({}),
        response: { 200: { description: "A dashboard asset.", content: { [type]: { schema: z.string() } } } },
      };
      app.get(asset.path, { schema }, async (_request, reply) =>
        // Its URL carries its hash (assets.ts): whatever a browser kept under it is still right.
        reply.type(type).header("cache-control", "public, max-age=31536000, immutable").send(text),
      );
    }
    signInRoutes(dashboard);
    overviewPage(dashboard);
    emailListPage(dashboard);
    emailDetailPage(dashboard);
    emailActions(dashboard);
    broadcastListPage(dashboard);
    broadcastEditor(dashboard);
    broadcastDetailPage(dashboard);
    broadcastActions(dashboard);
    broadcastPreviewFrame(dashboard);
    contactListPage(dashboard);
    contactDetailPage(dashboard);
    segmentPages(dashboard);
    topicPages(dashboard);
    contactPropertyPages(dashboard);
    contactImportPages(dashboard);
    contactImportDetailPage(dashboard);
    automationPages(dashboard);
    automationRunPage(dashboard);
    domainListPage(dashboard);
    domainCreatePages(dashboard);
    domainDetailPages(dashboard);
    domainClaimPages(dashboard);
    webhookListPage(dashboard);
    webhookCreatePages(dashboard);
    webhookDetailPages(dashboard);
    webhookDeliveryPages(dashboard);
    templateListPage(dashboard);
    templateDetailPages(dashboard);
    templatePreviewFrame(dashboard);
    apiKeyPages(dashboard);
    suppressionPages(dashboard);
    logPages(dashboard);
  };
}
