/**
 * `append_set` (setAppendMigration.ts) with each event's hash: the links are chained in the statement
 * that holds the stream's lock, from the head hash kept on the stream row, so no concurrent append can
 * slip between a link and its predecessor (docs/operations.md, "Integrity").
 */
export const hashedAppendSet = `
-- p_appends: [{"stream": …, "expected": …, "events": [{…, "content": hash}, …], "group": n}, …].
-- outcome: 0 written, 1 an idempotent retry (already written), 2 wrong expected revision, 3 not written
-- because another append of its group had a wrong expected revision, 4 nothing to write (no events).
-- actual_revision is the stream's last revision before this set (-1: no stream).
CREATE OR REPLACE FUNCTION eventstore.append_set(p_appends jsonb)
RETURNS TABLE (ord bigint, outcome smallint, next_revision text, commit_position text, prepare_position text, actual_revision text)
LANGUAGE plpgsql AS $$
DECLARE
  v_stream text[];
  v_created text[];
  v_events jsonb[];
  -- -1 any, -2 no_stream, -3 stream_exists, otherwise the expected revision
  v_expected bigint[];
  v_group bigint[];
  v_count bigint[];
  v_current bigint[];
  v_head text[];
  v_chain jsonb[];
  v_genesis jsonb[];
  v_start bigint[];
  v_outcome smallint[];
  v_tx xid8[];
  v_seq bigint[];
  v_failed bigint[] := '{}';
  v_written boolean := false;
  v_matches bigint;
  v_at_tx xid8;
  v_at_seq bigint;
  v_ok boolean;
  n integer;
BEGIN
  SELECT array_agg(a.value->>'stream' ORDER BY a.i), array_agg(a.value->'events' ORDER BY a.i),
         array_agg(CASE a.value->>'expected' WHEN 'any' THEN -1 WHEN 'no_stream' THEN -2 WHEN 'stream_exists' THEN -3
                   ELSE (a.value->>'expected')::bigint END ORDER BY a.i),
         array_agg(coalesce((a.value->>'group')::bigint, -a.i) ORDER BY a.i),
         array_agg(jsonb_array_length(a.value->'events') ORDER BY a.i)
    INTO v_stream, v_events, v_expected, v_group, v_count
    FROM jsonb_array_elements(p_appends) WITH ORDINALITY AS a(value, i);
  n := coalesce(array_length(v_stream, 1), 0);
  IF n = 0 THEN RETURN; END IF;

  -- The stream rows are the append locks, taken in stream order so that two sets in flight cannot
  -- deadlock. A missing stream's row is inserted at the revision its append will reach (one row version,
  -- not two) and removed again if the append is not written; an existing one is locked without being
  -- rewritten (DO UPDATE … WHERE false locks and skips, and RETURNING then names only the rows inserted).
  -- A no_stream append, if written at all, starts its stream: its links are known before any lock.
  SELECT array_agg(CASE WHEN u.expected = -2 AND u.cnt > 0 THEN to_jsonb(eventstore.chain_events(NULL, u.stream, -1, u.events)) END
                   ORDER BY u.i)
    INTO v_genesis
    FROM unnest(v_stream, v_expected, v_count, v_events) WITH ORDINALITY AS u(stream, expected, cnt, events, i);
  WITH created AS (
    INSERT INTO eventstore.streams AS s (stream_id, revision, hash)
    SELECT u.stream, CASE WHEN u.expected IN (-1, -2) THEN u.cnt - 1 ELSE -1 END,
           CASE WHEN u.expected = -2 THEN u.genesis->>(u.cnt::integer - 1)
                WHEN u.expected = -1 AND u.cnt > 0 THEN (eventstore.chain_events(NULL, u.stream, -1, u.events))[u.cnt] END
      FROM unnest(v_stream, v_expected, v_count, v_events, v_genesis) AS u(stream, expected, cnt, events, genesis)
     ORDER BY u.stream COLLATE "C"
    ON CONFLICT (stream_id) DO UPDATE SET revision = s.revision WHERE false
    RETURNING s.stream_id
  )
  SELECT coalesce(array_agg(created.stream_id), '{}') INTO v_created FROM created;

  -- A statement of its own: its snapshot is taken after the locks, so it reads every row's latest revision.
  -- One index lookup per stream, as a subquery: a join let the plan a session caches while the table is
  -- new (no statistics yet) scan the whole table on every set for as long as the session lives.
  SELECT array_agg(CASE WHEN u.stream = ANY (v_created) THEN -1
                        ELSE (SELECT s.revision FROM eventstore.streams s WHERE s.stream_id = u.stream) END ORDER BY u.i),
         array_agg(CASE WHEN u.stream = ANY (v_created) THEN NULL
                        ELSE (SELECT s.hash FROM eventstore.streams s WHERE s.stream_id = u.stream) END ORDER BY u.i)
    INTO v_current, v_head
    FROM unnest(v_stream) WITH ORDINALITY AS u(stream, i);

  -- An idempotent retry: the first event is already in this stream where the append would have put it.
  SELECT array_agg(
           CASE WHEN u.cur >= 0 AND u.cnt > 0 THEN
             (SELECT e.revision FROM eventstore.events e WHERE e.event_id = (u.events->0->>'id')::uuid AND e.stream_id = u.stream)
           END ORDER BY u.i)
    INTO v_start
    FROM unnest(v_stream, v_events, v_current, v_count) WITH ORDINALITY AS u(stream, events, cur, cnt, i);

  v_outcome := array_fill(0::smallint, ARRAY[n]);
  v_tx := array_fill(NULL::xid8, ARRAY[n]);
  v_seq := array_fill(NULL::bigint, ARRAY[n]);
  FOR i IN 1..n LOOP
    IF v_start[i] IS NOT NULL THEN
      v_ok := CASE v_expected[i] WHEN -1 THEN true WHEN -3 THEN true WHEN -2 THEN v_start[i] = 0
              ELSE v_start[i] = v_expected[i] + 1 END;
      SELECT count(*) INTO v_matches
        FROM jsonb_array_elements(v_events[i]) WITH ORDINALITY AS k(value, o)
        JOIN eventstore.events e ON e.stream_id = v_stream[i] AND e.revision = v_start[i] + k.o - 1
         AND e.event_id = (k.value->>'id')::uuid;
      IF v_ok AND v_matches = v_count[i] THEN
        v_outcome[i] := 1;
        SELECT e.tx_id, e.seq INTO v_at_tx, v_at_seq FROM eventstore.events e
         WHERE e.stream_id = v_stream[i] AND e.revision = v_start[i] + v_count[i] - 1;
        v_tx[i] := v_at_tx;
        v_seq[i] := v_at_seq;
      ELSE
        v_outcome[i] := 2;
      END IF;
    ELSE
      v_ok := CASE v_expected[i] WHEN -1 THEN true WHEN -2 THEN v_current[i] = -1 WHEN -3 THEN v_current[i] >= 0
              ELSE v_current[i] = v_expected[i] END;
      IF NOT v_ok THEN
        v_outcome[i] := 2;
      ELSIF v_count[i] = 0 THEN
        v_outcome[i] := 4;
        SELECT e.tx_id, e.seq INTO v_at_tx, v_at_seq FROM eventstore.events e
         WHERE e.stream_id = v_stream[i] AND e.revision = v_current[i];
        v_tx[i] := v_at_tx;
        v_seq[i] := v_at_seq;
      END IF;
    END IF;
    IF v_outcome[i] = 2 THEN v_failed := v_failed || v_group[i]; END IF;
  END LOOP;
  IF cardinality(v_failed) > 0 THEN
    FOR i IN 1..n LOOP
      IF v_outcome[i] <> 2 AND v_group[i] = ANY (v_failed) THEN v_outcome[i] := 3; END IF;
    END LOOP;
  END IF;

  IF 0 = ANY (v_outcome) THEN
    v_written := true;
    -- Each stream's links, chained to the head found under its lock (docs/operations.md, "Integrity").
    SELECT array_agg(CASE WHEN u.outcome = 0 AND u.expected = -2 THEN u.genesis
                          WHEN u.outcome = 0 THEN to_jsonb(eventstore.chain_events(u.head, u.stream, u.cur, u.events)) END ORDER BY u.i)
      INTO v_chain
      FROM unnest(v_stream, v_events, v_current, v_outcome, v_head, v_expected, v_genesis)
           WITH ORDINALITY AS u(stream, events, cur, outcome, head, expected, genesis, i);
    WITH inserted AS (
      INSERT INTO eventstore.events (stream_id, revision, event_id, type, data, metadata, hash)
      SELECT u.stream, u.cur + k.o, (k.value->>'id')::uuid, k.value->>'type', k.value->'data',
             coalesce(k.value->'metadata', '{}'::jsonb), u.chain->>(k.o::integer - 1)
        FROM unnest(v_stream, v_events, v_current, v_outcome, v_chain) WITH ORDINALITY AS u(stream, events, cur, outcome, chain, i),
             jsonb_array_elements(u.events) WITH ORDINALITY AS k(value, o)
       WHERE u.outcome = 0
       ORDER BY u.i, k.o
      RETURNING stream_id, seq
    ), last AS (
      SELECT inserted.stream_id, max(inserted.seq) AS seq FROM inserted GROUP BY inserted.stream_id
    )
    SELECT array_agg(CASE WHEN u.outcome = 0 THEN last.seq ELSE v_seq[u.i] END ORDER BY u.i) INTO v_seq
      FROM unnest(v_stream, v_outcome) WITH ORDINALITY AS u(stream, outcome, i)
      LEFT JOIN last ON last.stream_id = u.stream;
    UPDATE eventstore.streams s SET revision = u.cur + u.cnt, hash = u.chain->>(u.cnt::integer - 1)
      FROM unnest(v_stream, v_current, v_count, v_outcome, v_chain) AS u(stream, cur, cnt, outcome, chain)
     WHERE u.outcome = 0 AND u.cur >= 0 AND s.stream_id = u.stream;
  END IF;
  -- The row of a stream this set created must not outlive it unless its append was written.
  DELETE FROM eventstore.streams s
   USING unnest(v_stream, v_current, v_outcome) AS u(stream, cur, outcome)
   WHERE u.cur = -1 AND u.outcome <> 0 AND s.stream_id = u.stream;
  IF v_written THEN
    PERFORM pg_notify('eventstore_appended', pg_current_xact_id()::text);
  END IF;

  RETURN QUERY
  SELECT u.i, u.outcome,
         (CASE u.outcome WHEN 0 THEN u.cur + u.cnt WHEN 1 THEN v_start[u.i] + u.cnt - 1 WHEN 4 THEN u.cur END)::text,
         (CASE u.outcome WHEN 0 THEN pg_current_xact_id() ELSE coalesce(v_tx[u.i], '0'::xid8) END)::text,
         coalesce(u.seq, 0)::text,
         u.cur::text
    FROM unnest(v_outcome, v_current, v_count, v_seq) WITH ORDINALITY AS u(outcome, cur, cnt, seq, i);
END
$$;
`;
