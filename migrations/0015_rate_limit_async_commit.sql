-- rate_limit_hit, able to commit without waiting for its WAL flush.
--
-- The bucket's advisory lock lasts until the hit's transaction ends, and a
-- commit waits for its WAL to reach the disk: every hit on one bucket waited
-- for the flush of the one before (a user's creates ran at one per flush,
-- about 360 a second here, whatever the limit). Called in a transaction of
-- its own (p_own_transaction), a hit now commits asynchronously: the lock is
-- free as soon as the statement ends. A crash can lose the last fraction of
-- a second of hits (wal_writer_delay), which lets a client past its limit by
-- that much once; acceptable for a limit, never for data, so nothing else
-- commits this way. Inside someone else's transaction the setting would
-- reach their commit too: there it is left alone.
CREATE FUNCTION rate_limit_hit(p_bucket text, p_limit integer, p_window_seconds double precision, p_own_transaction boolean)
RETURNS TABLE (allowed boolean, wait_seconds double precision, remaining integer)
LANGUAGE plpgsql AS $$
DECLARE
  hits integer;
  oldest timestamptz;
BEGIN
  IF p_own_transaction THEN
    PERFORM set_config('synchronous_commit', 'off', true);
  END IF;
  PERFORM pg_advisory_xact_lock(hashtext(p_bucket));
  DELETE FROM rate_limit_hits WHERE bucket = p_bucket AND hit_at <= clock_timestamp() - make_interval(secs => p_window_seconds);
  SELECT count(*)::integer, min(hit_at) INTO hits, oldest FROM rate_limit_hits WHERE bucket = p_bucket;
  IF hits >= p_limit THEN
    RETURN QUERY SELECT false, EXTRACT(EPOCH FROM (oldest + make_interval(secs => p_window_seconds) - clock_timestamp()))::double precision, 0;
  ELSE
    INSERT INTO rate_limit_hits (bucket) VALUES (p_bucket);
    RETURN QUERY SELECT true, 0::double precision, p_limit - hits - 1;
  END IF;
END;
$$;

-- The three-argument form (a process started before this migration) is the same hit, committed as before.
CREATE OR REPLACE FUNCTION rate_limit_hit(p_bucket text, p_limit integer, p_window_seconds double precision)
RETURNS TABLE (allowed boolean, wait_seconds double precision, remaining integer)
LANGUAGE sql AS $$
  SELECT * FROM rate_limit_hit(p_bucket, p_limit, p_window_seconds, false);
$$;
