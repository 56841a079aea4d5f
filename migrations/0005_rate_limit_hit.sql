-- One sliding-window rate-limit hit in one statement (one round trip instead
-- of five). The transaction-scoped advisory lock serialises the
-- count-then-insert per bucket, so two racing requests never both take the
-- last place; called on its own, the statement's transaction holds it only
-- for the call.
CREATE FUNCTION rate_limit_hit(p_bucket text, p_limit integer, p_window_seconds double precision)
RETURNS TABLE (allowed boolean, wait_seconds double precision, remaining integer)
LANGUAGE plpgsql AS $$
DECLARE
  hits integer;
  oldest timestamptz;
BEGIN
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
