import { z } from "zod";
import { formatTimestamp } from "@tidings/core";
import { claimBlockedReasons, claimStatusAt, claimStatuses, domainRegions, type LiveDomainClaim } from "@tidings/domain";
import type { ApiRoutes } from "../app.js";
import { createDomainClaim, findClaim, verifyDomainClaim } from "../handlers/claimDomain.js";
import { requireAuth } from "../plugins/auth.js";
import { created, ok } from "../replies.js";
import { requestMetadata } from "../requestMetadata.js";
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

/** The DomainClaim of docs/wire-compatibility.md §6.5, as of `now`: a claim past its 7 days shows expired. */
function wireClaim(claim: LiveDomainClaim, now: Date): z.infer<typeof claimSchema> {
  const status = claimStatusAt(claim, formatTimestamp(now));
  return {
    object: "domain_claim",
    id: claim.claimId,
    name: claim.name,
    status,
    domain_id: claim.domainId,
    region: claim.settings.region,
    record: { ...claim.record, ttl: "Auto" },
    blocked_reason: status === "blocked" ? claim.blockedReason : null,
    failure_reason: status === "failed" ? claim.failureReason : null,
    created_at: claim.createdAt,
    expires_at: claim.expiresAt,
  };
}

/**
 * Domain claims (docs/wire-compatibility.md §6.5): taking over a name another team registered, by publishing a TXT record.
 * A claim is read from its own stream, which always has the latest word on it.
 */
export function domainClaimRoutes(services: ApiServices): ApiRoutes {
  const write = callerWrites(services);
  return (app) => {
    const claimErrors = { ...regionErrors, domain_name_taken: "Your team has the domain already." };
    app.post(
      "/domains/claim",
      { preValidation: checkRegionField, schema: { tags, body: createBody, errors: claimErrors, response: { 201: claimSchema } } },
      async (request, reply) => {
        const auth = requireAuth(request);
        const { name, region, custom_return_path, open_tracking, click_tracking, tracking_subdomain } = request.body;
        const input = {
          name,
          region,
          customReturnPath: custom_return_path,
          openTracking: open_tracking,
          clickTracking: click_tracking,
          trackingSubdomain: tracking_subdomain,
        };
        const { claim } = await createDomainClaim(services, auth.teamId, input, requestMetadata(request, auth, services.clock));
        return created(reply, wireClaim(claim, services.clock.now()));
      },
    );

    app.get("/domains/:id/claim", { schema: { tags, params, response: { 200: claimSchema } } }, async (request, reply) => {
      const auth = requireAuth(request);
      return ok(reply, wireClaim(await findClaim(services.store, auth.teamId, request.params.id), services.clock.now()));
    });

    const verifyErrors = { resource_locked: "The domain changed hands while the claim was verified; verify again." };
    app.post(
      "/domains/:id/claim/verify",
      { schema: { tags, params, errors: verifyErrors, response: { 200: claimSchema } } },
      async (request, reply) => {
        const { claim } = await write(request, (auth, metadata) => verifyDomainClaim(services, auth.teamId, request.params.id, metadata));
        return ok(reply, wireClaim(claim, services.clock.now()));
      },
    );
  };
}
