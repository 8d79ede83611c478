import { DomainError, type Decider } from "../decider.js";
import { createdBefore } from "../teamResource.js";
import type { WebhookEvent, WebhookStatus } from "./events.js";
import { checkEndpoint, checkEventTypes, distinctEventTypes } from "./rules.js";

export const webhookStream = (webhookId: string) => `webhook-${webhookId}`;

/** The 24 h during which a rotated-out secret still signs beside the new one. */
export const SIGNING_SECRET_GRACE_MS = 24 * 3_600_000;

export type WebhookCommand =
  | {
      type: "CreateWebhook";
      webhookId: string;
      teamId: string;
      endpoint: string;
      events: string[];
      /** Generated and sealed by the caller: a decider has no randomness and no keys. */
      sealedSecret: string;
      allowHttp: boolean;
      now: string;
    }
  | {
      type: "UpdateWebhook";
      teamId: string;
      endpoint?: string | undefined;
      events?: string[] | undefined;
      status?: WebhookStatus | undefined;
      allowHttp: boolean;
      now: string;
    }
  /** `graceUntil` is `now` + SIGNING_SECRET_GRACE_MS, in the wire format (the command carries its times). */
  | { type: "RotateWebhookSecret"; teamId: string; sealedSecret: string; graceUntil: string; now: string }
  | { type: "DeleteWebhook"; teamId: string; now: string };

export interface SigningSecret {
  sealed: string;
  /** Null for the current secret; the end of the grace for a rotated-out one. */
  validUntil: string | null;
}

export interface LiveWebhook {
  status: WebhookStatus;
  webhookId: string;
  teamId: string;
  endpoint: string;
  events: string[];
  createdAt: string;
  /** The current secret first, then the one rotated out last, while its grace lasts. */
  secrets: SigningSecret[];
}

export type WebhookState = { status: "none" } | { status: "deleted"; webhookId: string; teamId: string } | LiveWebhook;

export const isLiveWebhook = (state: WebhookState): state is LiveWebhook => state.status === "enabled" || state.status === "disabled";

const notFound = () => new DomainError("not_found", "Webhook not found");

const sameList = (a: string[], b: string[]) => a.length === b.length && a.every((value, i) => value === b[i]);

export const webhookDecider: Decider<WebhookCommand, WebhookEvent, WebhookState> = {
  initialState: { status: "none" },
  evolve(state, event) {
    switch (event.type) {
      case "WebhookCreated": {
        const { webhookId, teamId, endpoint, events, secret, createdAt } = event.data;
        return { status: "enabled", webhookId, teamId, endpoint, events, createdAt, secrets: [{ sealed: secret, validUntil: null }] };
      }
      case "WebhookUpdated": {
        if (!isLiveWebhook(state)) return state;
        const { endpoint, events, status } = event.data;
        return { ...state, endpoint, events, status };
      }
      case "WebhookSigningSecretRotated": {
        if (!isLiveWebhook(state)) return state;
        const { secret, previousSecret, previousValidUntil } = event.data;
        return {
          ...state,
          secrets: [
            { sealed: secret, validUntil: null },
            { sealed: previousSecret, validUntil: previousValidUntil },
          ],
        };
      }
      case "WebhookDeleted":
        return state.status === "none" ? state : { status: "deleted", webhookId: state.webhookId, teamId: state.teamId };
    }
  },
  decide(command, state) {
    if (command.type === "CreateWebhook") {
      if (state.status !== "none") return createdBefore(isLiveWebhook(state) && state.teamId === command.teamId, "Webhook");
      const events = distinctEventTypes(command.events);
      const invalid = checkEndpoint(command.endpoint, command.allowHttp) ?? checkEventTypes(events);
      if (invalid) return invalid;
      const { webhookId, teamId, endpoint, sealedSecret, now } = command;
      return [{ type: "WebhookCreated", data: { webhookId, teamId, endpoint, events, secret: sealedSecret, createdAt: now } }];
    }
    if (!isLiveWebhook(state) || state.teamId !== command.teamId) return notFound();
    switch (command.type) {
      case "UpdateWebhook": {
        const endpoint = command.endpoint ?? state.endpoint;
        const events = command.events === undefined ? state.events : distinctEventTypes(command.events);
        const status = command.status ?? state.status;
        const invalid =
          (command.endpoint === undefined ? undefined : checkEndpoint(endpoint, command.allowHttp)) ?? checkEventTypes(events);
        if (invalid) return invalid;
        if (endpoint === state.endpoint && status === state.status && sameList(events, state.events)) return [];
        return [{ type: "WebhookUpdated", data: { webhookId: state.webhookId, endpoint, events, status, updatedAt: command.now } }];
      }
      case "RotateWebhookSecret": {
        const { sealedSecret, graceUntil, now } = command;
        return [
          {
            type: "WebhookSigningSecretRotated",
            data: {
              webhookId: state.webhookId,
              secret: sealedSecret,
              previousSecret: state.secrets[0]!.sealed,
              previousValidUntil: graceUntil,
              rotatedAt: now,
            },
          },
        ];
      }
      case "DeleteWebhook":
        return [{ type: "WebhookDeleted", data: { webhookId: state.webhookId, deletedAt: command.now } }];
    }
  },
};
