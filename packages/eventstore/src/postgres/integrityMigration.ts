import type { Migration } from "@tidings/postgres";
import { hashedAppendSet } from "./hashedAppendSetMigration.js";

/**
 * Hashes for every event (docs/operations.md, "Integrity"): the column, the SQL twins of the JavaScript
 * hashing (`canonical_json` mirrors canonicalJson.ts, `link_hash` linkHash in hashes.ts), the chain of
 * the events already stored, built in revision order per stream, and the appends that chain new ones.
 * The functions of 0001/0002 that appended without a hash are dropped: nothing may write an event
 * outside the chain.
 */
const integrity = `
ALTER TABLE eventstore.events ADD COLUMN hash text;
ALTER TABLE eventstore.streams ADD COLUMN hash text;

CREATE FUNCTION eventstore.canonical_json(p jsonb) RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  CASE jsonb_typeof(p)
    WHEN 'object' THEN
      RETURN '{' || coalesce((SELECT string_agg(to_json(o.k)::text || ':' || eventstore.canonical_json(o.v), ',' ORDER BY o.k COLLATE "C")
                                FROM jsonb_each(p) AS o(k, v)), '') || '}';
    WHEN 'array' THEN
      RETURN '[' || coalesce((SELECT string_agg(eventstore.canonical_json(a.v), ',' ORDER BY a.i)
                                FROM jsonb_array_elements(p) WITH ORDINALITY AS a(v, i)), '') || ']';
    WHEN 'string' THEN
      RETURN to_json(p #>> '{}')::text;
    ELSE
      RETURN p::text;
  END CASE;
END
$$;

CREATE FUNCTION eventstore.content_hash(p_id uuid, p_type text, p_data jsonb, p_metadata jsonb) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT encode(sha256(convert_to(eventstore.canonical_json(
    jsonb_build_object('id', p_id::text, 'type', p_type, 'data', p_data, 'metadata', p_metadata)), 'UTF8')), 'hex')
$$;

CREATE FUNCTION eventstore.link_hash(p_prev text, p_stream text, p_revision bigint, p_content text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT encode(sha256(convert_to(coalesce(p_prev, '') || '|' || p_stream || '|' || p_revision::text || '|' || p_content, 'UTF8')), 'hex')
$$;

-- The links of events appended after revision p_from, each event carrying its "content" hash.
CREATE FUNCTION eventstore.chain_events(p_prev text, p_stream text, p_from bigint, p_events jsonb) RETURNS text[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  h text := coalesce(p_prev, '');
  links text[] := '{}';
BEGIN
  FOR i IN 0 .. jsonb_array_length(p_events) - 1 LOOP
    h := eventstore.link_hash(h, p_stream, p_from + i + 1, p_events->i->>'content');
    links := links || h;
  END LOOP;
  RETURN links;
END
$$;

-- The events already stored, chained as found: this vouches for nothing before it (docs/operations.md).
DO $$
DECLARE
  r record;
  v_stream text;
  v_hash text;
  v_tx xid8[] := '{}';
  v_seq bigint[] := '{}';
  v_hashes text[] := '{}';
BEGIN
  FOR r IN SELECT e.tx_id, e.seq, e.stream_id, e.revision,
                  eventstore.content_hash(e.event_id, e.type, e.data, e.metadata) AS content
             FROM eventstore.events e ORDER BY e.stream_id, e.revision LOOP
    IF v_stream IS DISTINCT FROM r.stream_id THEN
      v_stream := r.stream_id;
      v_hash := '';
    END IF;
    v_hash := eventstore.link_hash(v_hash, r.stream_id, r.revision, r.content);
    v_tx := v_tx || r.tx_id;
    v_seq := v_seq || r.seq;
    v_hashes := v_hashes || v_hash;
  END LOOP;
  UPDATE eventstore.events e SET hash = u.hash
    FROM unnest(v_tx, v_seq, v_hashes) AS u(tx_id, seq, hash)
   WHERE e.tx_id = u.tx_id AND e.seq = u.seq;
END
$$;

UPDATE eventstore.streams s SET hash = e.hash
  FROM eventstore.events e WHERE e.stream_id = s.stream_id AND e.revision = s.revision;

ALTER TABLE eventstore.events ALTER COLUMN hash SET NOT NULL;

DROP FUNCTION IF EXISTS eventstore.append_batch(jsonb);
DROP FUNCTION IF EXISTS eventstore.append(text, text, jsonb);
DROP FUNCTION IF EXISTS eventstore.try_append(text, text, jsonb);
`;

export const integrityMigration: Migration = { id: "0005_integrity", sql: integrity + hashedAppendSet };
