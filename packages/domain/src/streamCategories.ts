import { apiKeyStream } from "./apikey/decider.js";
import { automationStream } from "./automation/decider.js";
import { automationRunStream } from "./automationrun/decider.js";
import { broadcastStream } from "./broadcast/events.js";
import { contactErasureStream, contactStream } from "./contact/decider.js";
import { contactImportStream } from "./contactimport/decider.js";
import { deadLetterStream } from "./deadletter/events.js";
import { contactPropertyStream } from "./contactproperty/decider.js";
import { domainStream } from "./domain/decider.js";
import { domainClaimStream } from "./domainclaim/decider.js";
import { emailStream } from "./email/events.js";
import { emailShareStream } from "./emailshare/events.js";
import { eventDefinitionStream } from "./eventdef/decider.js";
import { customEventStream } from "./eventdef/events.js";
import { inboundEmailStream } from "./inboundemail/decider.js";
import { migrationStream } from "./migration/decider.js";
import { reputationStream } from "./reputation/events.js";
import { segmentStream } from "./segment/decider.js";
import { subjectErasureStream } from "./subjecterasure/events.js";
import { suppressionStream } from "./suppression/decider.js";
import { teamStream } from "./team/decider.js";
import { templateStream } from "./template/decider.js";
import { topicStream } from "./topic/decider.js";
import { webhookStream } from "./webhook/decider.js";
import { webhookDeliveryStream } from "./webhookdelivery/events.js";
import type { ApiKeyEvent } from "./apikey/events.js";
import type { AutomationEvent } from "./automation/events.js";
import type { AutomationRunEvent } from "./automationrun/events.js";
import type { BroadcastEvent } from "./broadcast/events.js";
import type { ContactErased, ContactEvent } from "./contact/events.js";
import type { ContactImportEvent } from "./contactimport/events.js";
import type { ContactPropertyEvent } from "./contactproperty/events.js";
import type { DeadLetterEvent } from "./deadletter/events.js";
import type { DomainEvent } from "./domain/events.js";
import type { DomainClaimEvent } from "./domainclaim/events.js";
import type { EmailEvent } from "./email/events.js";
import type { EmailShareEvent } from "./emailshare/events.js";
import type { CustomEventReceived, EventDefinitionEvent } from "./eventdef/events.js";
import type { InboundEmailEvent } from "./inboundemail/events.js";
import type { MigrationEvent } from "./migration/events.js";
import type { ReputationEvent } from "./reputation/events.js";
import type { SegmentEvent } from "./segment/events.js";
import type { SubjectErased } from "./subjecterasure/events.js";
import type { SuppressionEvent } from "./suppression/events.js";
import type { TeamEvent } from "./team/events.js";
import type { TemplateEvent } from "./template/events.js";
import type { TopicEvent } from "./topic/events.js";
import type { WebhookEvent } from "./webhook/events.js";
import type { WebhookDeliveryEvent } from "./webhookdelivery/events.js";

/**
 * The events each stream category holds: `email-<id>` streams hold `EmailEvent`s, and so on. The bus's
 * subjects (`events.<category>.<Type>`) and the sagas' consumers are typed from it, so the forwarder that
 * publishes and the saga that subscribes name the same subject, and a consumer gets its events typed.
 * `streamOfCategory` (tested) keeps each key equal to what the category's stream function writes.
 */
export interface EventsByCategory {
  apikey: ApiKeyEvent;
  automation: AutomationEvent;
  automationrun: AutomationRunEvent;
  broadcast: BroadcastEvent;
  contact: ContactEvent;
  contacterasure: ContactErased;
  contactproperty: ContactPropertyEvent;
  customevent: CustomEventReceived;
  deadletter: DeadLetterEvent;
  domain: DomainEvent;
  domainclaim: DomainClaimEvent;
  email: EmailEvent;
  emailshare: EmailShareEvent;
  eventdef: EventDefinitionEvent;
  import: ContactImportEvent;
  inbound: InboundEmailEvent;
  migration: MigrationEvent;
  reputation: ReputationEvent;
  segment: SegmentEvent;
  subjecterasure: SubjectErased;
  suppression: SuppressionEvent;
  team: TeamEvent;
  template: TemplateEvent;
  topic: TopicEvent;
  webhook: WebhookEvent;
  webhookdelivery: WebhookDeliveryEvent;
}

export type StreamCategory = keyof EventsByCategory;
/** The event types of a category (`"EmailQueued" | "EmailSent" | …` for `email`). */
export type EventTypeOf<Category extends StreamCategory> = EventsByCategory[Category]["type"];
/** One event of a category, by its type. */
export type EventOf<Category extends StreamCategory, Type extends EventTypeOf<Category> = EventTypeOf<Category>> = Extract<
  EventsByCategory[Category],
  { type: Type }
>;

/** Each category's stream function: what keeps `EventsByCategory`'s keys equal to the streams' prefixes. */
export const streamOfCategory: { [Category in StreamCategory]: (id: string) => string } = {
  apikey: apiKeyStream,
  automation: automationStream,
  automationrun: automationRunStream,
  broadcast: broadcastStream,
  contact: contactStream,
  contacterasure: contactErasureStream,
  contactproperty: contactPropertyStream,
  customevent: customEventStream,
  deadletter: deadLetterStream,
  domain: domainStream,
  domainclaim: domainClaimStream,
  email: emailStream,
  emailshare: emailShareStream,
  eventdef: eventDefinitionStream,
  import: contactImportStream,
  inbound: inboundEmailStream,
  migration: migrationStream,
  reputation: reputationStream,
  segment: segmentStream,
  subjecterasure: subjectErasureStream,
  suppression: suppressionStream,
  team: teamStream,
  template: templateStream,
  topic: topicStream,
  webhook: webhookStream,
  webhookdelivery: webhookDeliveryStream,
};
