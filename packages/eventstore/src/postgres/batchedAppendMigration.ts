import type { Migration } from "@tidings/postgres";

/**
 * Group commit: `append_batch` runs many appends in one transaction, each with its own outcome, so one
 * round trip, one WAL flush and one NOTIFY serve every append waiting in this process. `try_append`
 * reports a wrong expected revision as a value instead of raising it, so one conflict does not abort the
 * others; `append` keeps raising it, for single appends.
 */
export const batchedAppendMigration: Migration = {
  id: "0002_batched_appends",
  sql: `
DROP FUNCTION eventstore.append(text, text, jsonb);

-- actual_revision is NULL on success; on a wrong expected revision it holds the stream's last revision
-- (-1: no stream) and nothing was written.
CREATE FUNCTION eventstore.try_append(p_stream text, p_expected text, p_events jsonb)
RETURNS TABLE (next_revision text, commit_position text, prepare_position text, actual_revision text)
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
        RETURN QUERY SELECT NULL::text, NULL::text, NULL::text, v_current::text;
        RETURN;
      END IF;
      RETURN QUERY SELECT (v_start + v_count - 1)::text, e.tx_id::text, e.seq::text, NULL::text
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
  IF NOT v_ok OR v_count = 0 THEN
    -- The placeholder row of a stream that does not exist must not outlive this append.
    IF v_current = -1 THEN
      DELETE FROM eventstore.streams s WHERE s.stream_id = p_stream;
    END IF;
    IF NOT v_ok THEN
      RETURN QUERY SELECT NULL::text, NULL::text, NULL::text, v_current::text;
      RETURN;
    END IF;
    RETURN QUERY SELECT v_current::text, coalesce(max(e.tx_id)::text, '0'), coalesce(max(e.seq)::text, '0'), NULL::text
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
  -- Identical notifications of one transaction collapse into one.
  PERFORM pg_notify('eventstore_appended', pg_current_xact_id()::text);
  RETURN QUERY SELECT (v_current + v_count)::text, pg_current_xact_id()::text, v_seq::text, NULL::text;
END
$$;

CREATE FUNCTION eventstore.append(p_stream text, p_expected text, p_events jsonb)
RETURNS TABLE (next_revision text, commit_position text, prepare_position text)
LANGUAGE plpgsql AS $$
DECLARE
  r record;
BEGIN
  SELECT * INTO r FROM eventstore.try_append(p_stream, p_expected, p_events);
  IF r.actual_revision IS NOT NULL THEN
    RAISE EXCEPTION 'stream %: wrong expected revision %', p_stream, p_expected
      USING ERRCODE = 'ES409', DETAIL = r.actual_revision;
  END IF;
  RETURN QUERY SELECT r.next_revision, r.commit_position, r.prepare_position;
END
$$;

-- p_appends: [{"stream": …, "expected": …, "events": [...]}, …]. Streams are locked in stream order, so
-- two batches in flight at once cannot deadlock; appends to one stream keep their order in the batch.
CREATE FUNCTION eventstore.append_batch(p_appends jsonb)
RETURNS TABLE (ord bigint, next_revision text, commit_position text, prepare_position text, actual_revision text)
LANGUAGE plpgsql AS $$
DECLARE
  a record;
BEGIN
  FOR a IN
    SELECT n.ord AS i, n.value->>'stream' AS stream, n.value->>'expected' AS expected, n.value->'events' AS events
      FROM jsonb_array_elements(p_appends) WITH ORDINALITY AS n(value, ord)
     ORDER BY n.value->>'stream' COLLATE "C", n.ord
  LOOP
    RETURN QUERY SELECT a.i, t.* FROM eventstore.try_append(a.stream, a.expected, a.events) t;
  END LOOP;
END
$$;
`,
};
