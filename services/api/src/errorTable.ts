/** The error names a client may see (docs/wire-compatibility.md §3.2). The SDK returns our body verbatim as `error`. */
export const wireErrorNames = [
  "invalid_idempotency_key",
  "validation_error",
  "missing_api_key",
  "restricted_api_key",
  "invalid_api_key",
  "suspended_api_key",
  "invalid_permission",
  "email_above_quota",
  "not_found",
  "method_not_allowed",
  "invalid_idempotent_request",
  "concurrent_idempotent_requests",
  "resource_locked",
  "invalid_attachment",
  "invalid_from_address",
  "invalid_access",
  "invalid_parameter",
  "invalid_region",
  "missing_required_field",
  "missing_required_parameter",
  "daily_quota_exceeded",
  "monthly_quota_exceeded",
  "rate_limit_exceeded",
  "security_error",
  "application_error",
  "internal_server_error",
  "service_unavailable",
] as const;

export type WireErrorName = (typeof wireErrorNames)[number];

export interface WireError {
  statusCode: number;
  name: WireErrorName;
}

/**
 * Every failure code Tidings raises, and what the client sees for it: the one place where a code gets its
 * HTTP status. A `TidingsError` (or a domain error rethrown as one) carries a code from here; a code that is
 * missing answers 500, so add the row together with the code.
 *
 * The contract's own names map to themselves. Some names are used with several statuses (docs/wire-compatibility.md §3.2 lists
 * `validation_error` as 400, 403 and 422), so a code that needs a status other than the name's usual one
 * gets its own row here instead of a status chosen at the throw site.
 */
export const errorTable: Readonly<Record<string, WireError>> = {
  invalid_idempotency_key: { statusCode: 400, name: "invalid_idempotency_key" },
  validation_error: { statusCode: 422, name: "validation_error" },
  missing_api_key: { statusCode: 401, name: "missing_api_key" },
  restricted_api_key: { statusCode: 401, name: "restricted_api_key" },
  invalid_api_key: { statusCode: 403, name: "invalid_api_key" },
  suspended_api_key: { statusCode: 403, name: "suspended_api_key" },
  invalid_permission: { statusCode: 403, name: "invalid_permission" },
  email_above_quota: { statusCode: 403, name: "email_above_quota" },
  not_found: { statusCode: 404, name: "not_found" },
  method_not_allowed: { statusCode: 405, name: "method_not_allowed" },
  invalid_idempotent_request: { statusCode: 409, name: "invalid_idempotent_request" },
  concurrent_idempotent_requests: { statusCode: 409, name: "concurrent_idempotent_requests" },
  resource_locked: { statusCode: 409, name: "resource_locked" },
  invalid_attachment: { statusCode: 422, name: "invalid_attachment" },
  invalid_from_address: { statusCode: 422, name: "invalid_from_address" },
  invalid_access: { statusCode: 422, name: "invalid_access" },
  invalid_parameter: { statusCode: 422, name: "invalid_parameter" },
  invalid_region: { statusCode: 422, name: "invalid_region" },
  missing_required_field: { statusCode: 422, name: "missing_required_field" },
  missing_required_parameter: { statusCode: 422, name: "missing_required_parameter" },
  daily_quota_exceeded: { statusCode: 429, name: "daily_quota_exceeded" },
  monthly_quota_exceeded: { statusCode: 429, name: "monthly_quota_exceeded" },
  rate_limit_exceeded: { statusCode: 429, name: "rate_limit_exceeded" },
  security_error: { statusCode: 451, name: "security_error" },
  application_error: { statusCode: 500, name: "application_error" },
  internal_server_error: { statusCode: 500, name: "internal_server_error" },
  service_unavailable: { statusCode: 503, name: "service_unavailable" },

  // docs/wire-compatibility.md §3.2 lists `validation_error` as 403 for a send from a domain the caller may not use.
  sending_domain_restricted: { statusCode: 403, name: "validation_error" },
  // docs/wire-compatibility.md §3.2 lists `validation_error` as 403 for a domain already registered; the message points at claims.
  domain_name_taken: { statusCode: 403, name: "validation_error" },
  // docs/wire-compatibility.md §6.8 leaves a duplicate contact undocumented; a conflict says what happened, in the contract's shape.
  contact_exists: { statusCode: 409, name: "validation_error" },
  // docs/wire-compatibility.md §6.11: an action the broadcast's state forbids (cancel of a draft or a sent one, edit of
  // a sent one) is a 403 `validation_error`.
  broadcast_state_conflict: { statusCode: 403, name: "validation_error" },
  // A send from a team or domain paused for its bounce or complaint rate (README, "Reputation guardrails"): 403, as
  // trying again changes nothing until an operator lifts it, where a 429 would have clients retry.
  sending_paused: { statusCode: 403, name: "validation_error" },
  // A signed attachment download URL (docs/wire-compatibility.md §6.2) that is forged or past its expiry.
  invalid_download_url: { statusCode: 403, name: "validation_error" },

  // Transport failures, raised by the body parser and the framework before any route runs. docs/wire-compatibility.md §3.2 names
  // only `validation_error` for malformed input, so these keep that name with the status HTTP expects.
  invalid_json: { statusCode: 400, name: "validation_error" },
  malformed_request: { statusCode: 400, name: "validation_error" },
  request_timeout: { statusCode: 408, name: "validation_error" },
  body_too_large: { statusCode: 413, name: "validation_error" },
  unsupported_media_type: { statusCode: 415, name: "validation_error" },
  headers_too_large: { statusCode: 431, name: "validation_error" },
};

export const unexpectedError: WireError = errorTable.application_error!;
