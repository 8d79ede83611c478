import type { Database } from "@tidings/postgres";
import { getBroadcast } from "../queries/broadcasts.js";
import { getContact } from "../queries/contacts.js";
import { getDomain } from "../queries/domains.js";
import { emailQueries } from "../queries/emails.js";
import { getSegment } from "../queries/segments.js";
import { getTemplate } from "../queries/templates.js";
import { getTopic } from "../queries/topics.js";
import { getWebhook } from "../queries/webhooks.js";

/** What `GET /<resource>/:id` answers for a team's resource, or undefined where it answers 404. */
export type ResourceRead = (database: Database, teamId: string, id: string) => Promise<object | undefined>;

const withObject =
  <Item extends object>(
    object: string,
    read: (database: Database, teamId: string, id: string) => Promise<Item | undefined>,
  ): ResourceRead =>
  async (database, teamId, id) => {
    const found = await read(database, teamId, id);
    return found && { object, ...found };
  };

/**
 * The GET read of each resource whose stream `tidings audit state` replays, by stream category: the
 * route's own query and the fields the route adds to it, so a replayed resource prints as GET showed it.
 * A webhook's signing secret is left out: an audit has no need to print it. `messageIdHost` is the
 * host the emails' Message-IDs carry (the PUBLIC_URL's, as the emails route has it).
 */
export function resourceReads(messageIdHost: string): Record<string, ResourceRead> {
  return {
    template: getTemplate,
    email: (database, teamId, id) => emailQueries(database, messageIdHost).get(teamId, id),
    contact: getContact,
    domain: getDomain,
    broadcast: getBroadcast,
    webhook: withObject("webhook", async (database, teamId, id) => {
      const found = await getWebhook(database, teamId, id);
      if (!found) return undefined;
      const { secret: _sealed, ...shown } = found;
      return shown;
    }),
    segment: withObject("segment", getSegment),
    topic: withObject("topic", getTopic),
  };
}
