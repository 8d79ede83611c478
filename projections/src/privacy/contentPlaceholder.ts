import { automationRunStream, contactImportStream, emailStream, inboundEmailStream, webhookDeliveryStream } from "@tidings/domain";
import { contentKeyId, erasedText, type ContentKind } from "@tidings/privacy";

/** The stream whose content key seals a read-model row's content, by the row's id. */
const streamOf: Record<ContentKind, (id: string) => string> = {
  email: emailStream,
  inbound: inboundEmailStream,
  webhook: webhookDeliveryStream,
  import: contactImportStream,
  // Custom events have no read model; their content in one is an automation run's.
  event: automationRunStream,
};

/**
 * The text a row's content reads as once its stream's content key is shredded: what the events open to
 * (`sealEvents` tags content with the key id's first 8 characters), so a rebuild shows the same.
 */
export const contentPlaceholder = (kind: ContentKind, id: string) => erasedText(contentKeyId(kind, streamOf[kind](id)).slice(0, 8));
