-- Events in order, and redelivery (issue 41, with issue 40's per-endpoint isolation).
--
-- Every event carries `sequence`: its number among the events of its resource
-- (the submission, media file, export, member, invitation or book it is about),
-- from 1, in the order the changes committed. The counter row is taken with the
-- change's own transaction (an upsert), so two changes of one resource get their
-- numbers in commit order. `resource_key` names the resource ("submission:<id>",
-- "member:<book id>:<user id>", "book:<book id>", "ping:<event id>").
CREATE TABLE event_sequences (
  resource_key text PRIMARY KEY,
  last bigint NOT NULL
);

ALTER TABLE events ADD COLUMN resource_key text, ADD COLUMN sequence bigint;

-- Events recorded before this version: numbered in the order they were made.
UPDATE events SET resource_key = CASE split_part(type, '.', 1)
    WHEN 'book' THEN 'book:' || book_id::text
    WHEN 'member' THEN 'member:' || book_id::text || ':' || coalesce(body -> 'data' -> 'object' ->> 'user_id', body -> 'data' -> 'object' ->> 'id')
    WHEN 'ping' THEN 'ping:' || id::text
    ELSE split_part(type, '.', 1) || ':' || coalesce(body -> 'data' -> 'object' ->> 'id', id::text)
  END;
WITH n AS (SELECT id, row_number() OVER (PARTITION BY resource_key ORDER BY created_at, id) AS seq FROM events)
UPDATE events e SET sequence = n.seq FROM n WHERE n.id = e.id;
UPDATE events SET body = (body::jsonb || jsonb_build_object('sequence', sequence))::json;
INSERT INTO event_sequences (resource_key, last)
  SELECT resource_key, max(sequence) FROM events WHERE resource_key IS NOT NULL AND resource_key NOT LIKE 'ping:%' GROUP BY resource_key;

-- The dispatcher's order: a delivery waits while an earlier, never-tried (or
-- due) delivery of the same resource to the same endpoint is pending, and
-- while one of that resource is in flight to that endpoint. `retry_base`: the
-- attempts made before a redelivery (the retry schedule starts again after it).
ALTER TABLE webhook_deliveries
  ADD COLUMN resource_key text,
  ADD COLUMN sequence bigint,
  ADD COLUMN retry_base integer NOT NULL DEFAULT 0;
UPDATE webhook_deliveries d SET resource_key = e.resource_key, sequence = e.sequence FROM events e WHERE e.id = d.event_id;
CREATE INDEX webhook_deliveries_order_idx ON webhook_deliveries (endpoint_id, resource_key, sequence) WHERE status = 'pending';

-- The delivery log shows the event's type and the first kilobyte of the receiver's answer.
ALTER TABLE webhook_attempts ADD COLUMN event_type text, ADD COLUMN response_excerpt text;
UPDATE webhook_attempts a SET event_type = e.type FROM events e WHERE e.id = a.event_id;
