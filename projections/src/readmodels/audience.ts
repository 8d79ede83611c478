import { contactImportsProjection } from "./contactImports.js";
import { contactPropertiesProjection } from "./contactProperties.js";
import { contactsProjection } from "./contacts.js";
import { mergedProjection } from "../engine/mergedProjection.js";
import { segmentsProjection } from "./segments.js";
import { topicsProjection } from "./topics.js";

/** Contact properties, contacts with their memberships, segments, topics and contact imports: the audience's read models, run as one. */
export const audienceProjection = mergedProjection("audience", [
  contactPropertiesProjection,
  contactsProjection,
  segmentsProjection,
  topicsProjection,
  contactImportsProjection,
]);
