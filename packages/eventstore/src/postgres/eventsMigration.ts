import type { Migration } from "@tidings/postgres";

/** The tables, the append function (replaced by 0002) and stream deletion. */
export const eventsMigration: Migration = {
  id: "0001_events",
  sql: `
CREATE SCHEMA IF NOT EXISTS eventstore;

-- $all is ordered by (tx_id, seq), not by seq: sequence values are taken in one order and committed in
-- another, while every transaction id below the snapshot's xmin is final (docs/architecture.md §4).
CREATE TABLE eventstore.events (
  seq bigserial NOT NULL,
  tx_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
  stream_id text NOT NULL,
  revision bigint NOT NULL,
  event_id uuid NOT NULL,
  type text NOT NULL,
  data jsonb NOT NULL,
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tx_id, seq),
  UNIQUE (stream_id, revision),
  -- Globally unique: the bus deduplicates on the event id, so two events sharing one would lose one.
  UNIQUE (event_id)
);

CREATE TABLE eventstore.streams (
  stream_id text PRIMARY KEY,
  -- The last revision; -1 only inside the appending transaction that creates the stream.
  revision bigint NOT NULL
);

-- One round trip per append. p_expected is 'any', 'no_stream', 'stream_exists' or a revision in digits.
CREATE FUNCTION eventstore.append(p_stream text, p_expected text, p_events jsonb)
RETURNS TABLE (next_revision text, commit_position text, prepare_position text)
LANGUAGE plpgsql AS $$
DECLARE
  v_count integer := jsonb_array_length(p_events);
  v_current bigint;
  v_start bigint;
  v_ok boolean;
  v_matches integer;
  v_seq bigint;
BEGIN
  -- The stream row is the append lock: appends to one stream serialise here, so revisions never race.
  SELECT s.revision INTO v_current FROM eventstore.streams s WHERE s.stream_id = p_stream FOR UPDATE;
  IF NOT FOUND THEN
    INSERT INTO eventstore.streams (stream_id, revision) VALUES (p_stream, -1) ON CONFLICT (stream_id) DO NOTHING;
    SELECT s.revision INTO v_current FROM eventstore.streams s WHERE s.stream_id = p_stream FOR UPDATE;
  END IF;

  -- An idempotent retry: the first event is already in this stream where this append would have put it.
  IF v_count > 0 AND v_current >= 0 THEN
    SELECT e.revision INTO v_start FROM eventstore.events e
      WHERE e.event_id = (p_events->0->>'id')::uuid AND e.stream_id = p_stream;
    IF FOUND THEN
      IF p_expected = 'any' OR p_expected = 'stream_exists' THEN
        v_ok := true;
      ELSIF p_expected = 'no_stream' THEN
        v_ok := v_start = 0;
      ELSE
        v_ok := v_start = p_expected::bigint + 1;
      END IF;
      SELECT count(*) INTO v_matches
        FROM jsonb_array_elements(p_events) WITH ORDINALITY AS n(value, ord)
        JOIN eventstore.events e ON e.stream_id = p_stream AND e.revision = v_start + n.ord - 1
          AND e.event_id = (n.value->>'id')::uuid;
      IF NOT v_ok OR v_matches <> v_count THEN
        RAISE EXCEPTION 'stream %: wrong expected revision %', p_stream, p_expected
          USING ERRCODE = 'ES409', DETAIL = v_current::text;
      END IF;
      RETURN QUERY SELECT (v_start + v_count - 1)::text, e.tx_id::text, e.seq::text
        FROM eventstore.events e WHERE e.stream_id = p_stream AND e.revision = v_start + v_count - 1;
      RETURN;
    END IF;
  END IF;

  IF p_expected = 'any' THEN
    v_ok := true;
  ELSIF p_expected = 'no_stream' THEN
    v_ok := v_current = -1;
  ELSIF p_expected = 'stream_exists' THEN
    v_ok := v_current >= 0;
  ELSE
    v_ok := v_current = p_expected::bigint;
  END IF;
  IF NOT v_ok THEN
    RAISE EXCEPTION 'stream %: wrong expected revision %', p_stream, p_expected
      USING ERRCODE = 'ES409', DETAIL = v_current::text;
  END IF;

  IF v_count = 0 THEN
    IF v_current = -1 THEN
      DELETE FROM eventstore.streams s WHERE s.stream_id = p_stream;
    END IF;
    RETURN QUERY SELECT v_current::text, coalesce(max(e.tx_id)::text, '0'), coalesce(max(e.seq)::text, '0')
      FROM eventstore.events e WHERE e.stream_id = p_stream AND e.revision = v_current;
    RETURN;
  END IF;

  WITH inserted AS (
    INSERT INTO eventstore.events (stream_id, revision, event_id, type, data, metadata)
    SELECT p_stream, v_current + n.ord, (n.value->>'id')::uuid, n.value->>'type', n.value->'data',
           coalesce(n.value->'metadata', '{}'::jsonb)
      FROM jsonb_array_elements(p_events) WITH ORDINALITY AS n(value, ord)
     ORDER BY n.ord
    RETURNING seq
  )
  SELECT max(inserted.seq) INTO v_seq FROM inserted;
  UPDATE eventstore.streams s SET revision = v_current + v_count WHERE s.stream_id = p_stream;
  PERFORM pg_notify('eventstore_appended', pg_current_xact_id()::text);
  RETURN QUERY SELECT (v_current + v_count)::text, pg_current_xact_id()::text, v_seq::text;
END
$$;

-- Deleting the stream row first waits for an append in flight; the second statement then takes a new
-- snapshot, so it also removes the events that append committed.
CREATE FUNCTION eventstore.delete_stream(p_stream text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM eventstore.streams s WHERE s.stream_id = p_stream;
  DELETE FROM eventstore.events e WHERE e.stream_id = p_stream;
END
$$;
`,
};
