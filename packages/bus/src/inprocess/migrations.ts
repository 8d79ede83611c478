import type { Migration } from "@tidings/postgres";

/**
 * Tables of the in-process bus (component "bus"). `bus_messages` is the stream, `bus_consumers` holds
 * each durable's read position, and `bus_pending` the messages delivered to a durable and not yet acked.
 */
export const busMigrations: Migration[] = [
  {
    id: "0001_bus",
    sql: `
CREATE TABLE bus_messages (
  seq bigserial PRIMARY KEY,
  subject text NOT NULL,
  msg_id text NOT NULL UNIQUE,
  data text NOT NULL,
  headers jsonb NOT NULL DEFAULT '{}',
  published_at timestamptz NOT NULL DEFAULT now()
);
-- Consumers walk seq in order and filter subjects on the way; only dead letters are read by subject.
CREATE INDEX bus_messages_dead_letters ON bus_messages (subject, seq) WHERE subject LIKE 'deadletter.%';
CREATE INDEX bus_messages_published_at ON bus_messages (published_at);

CREATE TABLE bus_consumers (
  durable text PRIMARY KEY,
  filter_subject text NOT NULL,
  delivered_through bigint NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE bus_pending (
  durable text NOT NULL REFERENCES bus_consumers (durable) ON DELETE CASCADE,
  seq bigint NOT NULL REFERENCES bus_messages (seq) ON DELETE CASCADE,
  delivery_count integer NOT NULL,
  due_at timestamptz NOT NULL,
  PRIMARY KEY (durable, seq)
);
CREATE INDEX bus_pending_due ON bus_pending (durable, due_at);
CREATE INDEX bus_pending_seq ON bus_pending (seq);
`,
  },
];
