import { z } from "zod";
import type { preValidationHookHandler } from "fastify";
import { TidingsError } from "@tidings/core";
import {
  capabilityStates,
  checkRegion,
  domainRegions,
  domainStatuses,
  recordStatuses,
  tlsModes,
  wireRecords,
  type DomainChanges,
} from "@tidings/domain";
import type { ApiRoutes } from "../app.js";
import { createDomain, type CreatedDomain } from "../handlers/createDomain.js";
import { deleteDomain, updateDomain, verifyDomain } from "../handlers/changeDomain.js";
import { listQuerySchema } from "../pagination.js";
import { getDomain, listDomains, type WireDomain } from "../queries/domains.js";
import { created, ok } from "../replies.js";
import { callerWrites } from "../callerWrites.js";
import type { ApiServices } from "../services.js";
import { dnsLabelText, domainNameText } from "./documentedText.js";
import { wireTimestampText } from "../wireTimestamp.js";
import { teamReads } from "./readRoutes.js";

const tags = ["domains"];
const params = z.object({ id: z.uuid() });

const capabilities = z
  .object({ sending: z.enum(capabilityStates).optional(), receiving: z.enum(capabilityStates).optional() })
  .describe("`sending` and `receiving`, each `enabled` or `disabled`; at least one stays enabled.");
const changeable = {
  open_tracking: z.boolean().optional(),
  click_tracking: z.boolean().optional(),
  tracking_subdomain: dnsLabelText()
    .optional()
    .describe("A DNS label: tracking links use `<tracking_subdomain>.<name>` (default `links`)."),
  tls: z
    .enum(tlsModes)
    .optional()
    .describe("`opportunistic` (default) or `enforced`: with `enforced`, mail to a server without TLS is not sent."),
  capabilities: capabilities.optional(),
};
const createBody = z.object({
  name: domainNameText().describe("The domain name; an IDN is stored as punycode."),
  region: z.enum(domainRegions).optional().describe("Default `us-east-1`."),
  custom_return_path: dnsLabelText().optional().describe("A DNS label: the return-path subdomain (default `send`)."),
  ...changeable,
});
const updateBody = z.object(changeable);

const recordFields = {
  name: z.string(),
  type: z.enum(["TXT", "MX", "CNAME"]),
  ttl: z.literal("Auto"),
  status: z.enum(recordStatuses),
  value: z.string(),
  priority: z.number().int().optional(),
};
const record = z.object({ record: z.enum(["SPF", "DKIM", "Receiving", "Tracking", "TrackingCAA"]), ...recordFields });
const recommendedRecord = z.object({ record: z.literal("DMARC"), ...recordFields });
const listItem = z.object({
  id: z.uuid(),
  name: z.string(),
  status: z.enum(domainStatuses),
  created_at: wireTimestampText(),
  region: z.enum(domainRegions),
  capabilities: z.object({ sending: z.enum(capabilityStates), receiving: z.enum(capabilityStates) }),
  open_tracking: z.boolean(),
  click_tracking: z.boolean(),
  tracking_subdomain: z.string(),
  tls: z.enum(tlsModes),
  custom_return_path: z.string(),
});
const domain = listItem.extend({
  object: z.literal("domain"),
  records: z.array(record).describe("The records to publish: sending and receiving depend on them."),
  recommended_records: z.array(recommendedRecord).describe("Records that are advised, not required: a DMARC policy."),
});
const reference = z.object({ object: z.literal("domain"), id: z.uuid() });
const deleted = reference.extend({ deleted: z.literal(true) });

/**
 * docs/wire-compatibility.md §3.2 names a region outside the four `invalid_region`, not a generic validation error:
 * checked before the schema.
 */
export const checkRegionField: preValidationHookHandler = (request, _reply, done) => {
  const body = request.body as { region?: unknown } | null | undefined;
  const region = body !== null && typeof body === "object" && !Array.isArray(body) ? body.region : undefined;
  const invalid = region === undefined ? undefined : checkRegion(String(region));
  done(invalid ? new TidingsError(invalid.name, invalid.message) : undefined);
};

/** What `checkRegionField` adds to a route's failures, for the OpenAPI document. */
export const regionErrors = { invalid_region: "`region` is not one of the regions." };
const nameTaken = {
  domain_name_taken: "The domain is registered already: by your team, or by another, whose domain `POST /domains/claim` can take over.",
};

type Changeable = z.infer<typeof updateBody>;

/** Wire fields to the domain's, only those given: a PATCH changes what it names and nothing else. */
function changesOf(body: Changeable): DomainChanges {
  const changes: DomainChanges = {};
  if (body.open_tracking !== undefined) changes.openTracking = body.open_tracking;
  if (body.click_tracking !== undefined) changes.clickTracking = body.click_tracking;
  if (body.tracking_subdomain !== undefined) changes.trackingSubdomain = body.tracking_subdomain;
  if (body.tls !== undefined) changes.tls = body.tls;
  if (body.capabilities !== undefined) changes.capabilities = body.capabilities;
  return changes;
}

function createdDomain({ created: d }: CreatedDomain): WireDomain {
  return {
    object: "domain",
    id: d.domainId,
    name: d.name,
    status: d.status,
    created_at: d.createdAt,
    region: d.region,
    capabilities: d.capabilities,
    open_tracking: d.openTracking,
    click_tracking: d.clickTracking,
    tracking_subdomain: d.trackingSubdomain,
    tls: d.tls,
    custom_return_path: d.customReturnPath,
    ...wireRecords(d.records),
  };
}

/**
 * `/domains` (docs/wire-compatibility.md §6.4). Writes go through the domain's stream, reads through the read model; a
 * write replies once the read model shows it.
 */
export function domainRoutes(services: ApiServices): ApiRoutes {
  const write = callerWrites(services);

  return (app) => {
    app.post(
      "/domains",
      {
        preValidation: checkRegionField,
        schema: { tags, body: createBody, errors: { ...regionErrors, ...nameTaken }, response: { 201: domain } },
      },
      async (request, reply) => {
        const { name, region, custom_return_path, ...rest } = request.body;
        const changes = changesOf(rest);
        const input = { name, region, customReturnPath: custom_return_path, ...changes };
        const result = await write(request, (auth, metadata) => createDomain(services, auth.teamId, input, metadata));
        return created(reply, createdDomain(result));
      },
    );

    const reads = teamReads(app, services.database, tags);
    reads.list("/domains", listQuerySchema(), listItem, listDomains);

    app.get("/domains/:id", { schema: { tags, params, response: { 200: domain } } }, async (request, reply) =>
      ok(reply, await reads.one(request, getDomain, request.params.id, "Domain not found")),
    );

    app.patch("/domains/:id", { schema: { tags, params, body: updateBody, response: { 200: reference } } }, async (request, reply) => {
      const result = await write(request, (auth, metadata) =>
        updateDomain(services, auth.teamId, request.params.id, changesOf(request.body), metadata),
      );
      return ok(reply, { object: "domain" as const, id: result.id });
    });

    app.delete("/domains/:id", { schema: { tags, params, response: { 200: deleted } } }, async (request, reply) => {
      const result = await write(request, (auth, metadata) => deleteDomain(services, auth.teamId, request.params.id, metadata));
      return ok(reply, { object: "domain" as const, id: result.id, deleted: true as const });
    });

    app.post("/domains/:id/verify", { schema: { tags, params, response: { 200: reference } } }, async (request, reply) => {
      const result = await write(request, (auth, metadata) => verifyDomain(services, auth.teamId, request.params.id, metadata));
      return ok(reply, { object: "domain" as const, id: result.id });
    });
  };
}
