import { z } from "zod";
import { formatTimestamp } from "@tidings/core";
import { claimBlockedReasons, claimStatuses, domainRegions } from "@tidings/domain";
import type { ApiRoutes } from "../app.js";
import { createDomainClaim, findClaim, verifyDomainClaim } from "../handlers/claimDomain.js";
import { listQuerySchema, listSchema } from "../pagination.js";
import { requireAuth } from "../plugins/auth.js";
import { listDomainClaims, storedClaim, wireDomainClaim } from "../queries/domainClaims.js";
import { created, ok } from "../replies.js";
import { callerWrites } from "../callerWrites.js";
import type { ApiServices } from "../services.js";
import { dnsLabelText, domainNameText } from "./documentedText.js";
import { checkRegionField, regionErrors } from "./domains.js";
import { wireTimestampText } from "../wireTimestamp.js";

const tags = ["domains"];
const params = z.object({ id: z.uuid().describe("The placeholder domain id the claim returned.") });

const createBody = z.object({
  name: domainNameText().describe("The domain name another team holds."),
  region: z.enum(domainRegions).optional(),
  custom_return_path: dnsLabelText().optional(),
  open_tracking: z.boolean().optional(),
  click_tracking: z.boolean().optional(),
  tracking_subdomain: dnsLabelText().optional(),
});

const claimSchema = z.object({
  object: z.literal("domain_claim"),
  id: z.uuid(),
  name: z.string(),
  status: z.enum(claimStatuses),
  domain_id: z.uuid(),
  region: z.enum(domainRegions),
  record: z.object({ type: z.literal("TXT"), name: z.string(), value: z.string(), ttl: z.literal("Auto") }),
  blocked_reason: z.enum(claimBlockedReasons).nullable(),
  failure_reason: z.string().nullable(),
  created_at: wireTimestampText(),
  expires_at: wireTimestampText(),
});

/**
 * Domain claims (docs/wire-compatibility.md §6.5): taking over a name another team registered, by publishing a TXT record.
 * A claim is read from its own stream, which always has the latest word on it; the list, a Tidings addition, from the
 * claims read model, which a write waits for.
 */
export function domainClaimRoutes(services: ApiServices): ApiRoutes {
  const write = callerWrites(services);
  const now = () => formatTimestamp(services.clock.now());
  return (app) => {
    const claimErrors = { ...regionErrors, domain_name_taken: "Your team has the domain already." };
    app.post(
      "/domains/claim",
      { preValidation: checkRegionField, schema: { tags, body: createBody, errors: claimErrors, response: { 201: claimSchema } } },
      async (request, reply) => {
        const { name, region, custom_return_path, open_tracking, click_tracking, tracking_subdomain } = request.body;
        const input = {
          name,
          region,
          customReturnPath: custom_return_path,
          openTracking: open_tracking,
          clickTracking: click_tracking,
          trackingSubdomain: tracking_subdomain,
        };
        const { claim } = await write(request, (auth, metadata) => createDomainClaim(services, auth.teamId, input, metadata));
        return created(reply, wireDomainClaim(storedClaim(claim), now()));
      },
    );

    app.get(
      "/domains/claims",
      {
        schema: {
          tags,
          summary: "List the team's domain claims (a Tidings addition)",
          querystring: listQuerySchema(),
          response: { 200: listSchema(claimSchema) },
        },
      },
      async (request, reply) => ok(reply, await listDomainClaims(services.database, requireAuth(request).teamId, request.query, now())),
    );

    app.get("/domains/:id/claim", { schema: { tags, params, response: { 200: claimSchema } } }, async (request, reply) => {
      const auth = requireAuth(request);
      return ok(reply, wireDomainClaim(storedClaim(await findClaim(services.store, auth.teamId, request.params.id)), now()));
    });

    const verifyErrors = { resource_locked: "The domain changed hands while the claim was verified; verify again." };
    app.post(
      "/domains/:id/claim/verify",
      { schema: { tags, params, errors: verifyErrors, response: { 200: claimSchema } } },
      async (request, reply) => {
        const { claim } = await write(request, (auth, metadata) => verifyDomainClaim(services, auth.teamId, request.params.id, metadata));
        return ok(reply, wireDomainClaim(storedClaim(claim), now()));
      },
    );
  };
}
