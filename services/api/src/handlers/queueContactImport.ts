import { newId, TidingsError, type Clock } from "@tidings/core";
import type { Changed } from "@tidings/commands";
import { contactPropertyTypes, enqueueContactImport, findSegment, findTopic } from "@tidings/audience";
import type { EventMetadata, EventStore } from "@tidings/eventstore";
import type { ImportOptions } from "../routes/contactImportFields.js";

type Deps = { store: EventStore; clock: Clock };

/**
 * Queues an import of an uploaded file. What can be checked before reading the file is checked here, so a
 * mapping to a property the team lacks, or an unknown segment or topic, is a 4xx and not a failed import.
 */
export async function queueContactImport(
  deps: Deps,
  teamId: string,
  file: { sha256: string; size: number },
  options: ImportOptions,
  metadata: EventMetadata,
): Promise<Changed> {
  const keys = Object.keys(options.columnMap.properties);
  const types = await contactPropertyTypes(deps.store, teamId, keys);
  const unknown = keys.find((key) => types[key] === undefined);
  if (unknown !== undefined)
    throw new TidingsError("validation_error", `\`column_map.properties.${unknown}\` is not a contact property of this team.`);
  await Promise.all([
    ...options.segmentIds.map((id) => findSegment(deps.store, teamId, id)),
    ...options.topics.map((t) => findTopic(deps.store, teamId, t.topicId)),
  ]);
  return enqueueContactImport(deps, { importId: newId(), teamId, file, ...options }, metadata);
}
