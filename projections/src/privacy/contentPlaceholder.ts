import { automationRunStream, contactImportStream, emailStream, inboundEmailStream, webhookDeliveryStream } from "@tidings/domain";
import { contentTag, erasedText, type ContentKind } from "@tidings/privacy";

/** The stream a read-model row's content was sealed in, by the row's id. */
const streamOf: Record<ContentKind, (id: string) => string> = {
  email: emailStream,
  inbound: inboundEmailStream,
  webhook: webhookDeliveryStream,
  import: contactImportStream,
  // Custom events have no read model; their content in one is an automation run's.
  event: automationRunStream,
};

/**
 * The text a row's content reads as once it is erased or expired: what the events open to (`sealEvents`
 * tags a stream's content with `contentTag`), so a rebuild shows the same.
 */
export const contentPlaceholder = (kind: ContentKind, id: string) => erasedText(contentTag(kind, streamOf[kind](id)));
