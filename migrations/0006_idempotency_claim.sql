-- Claims (user, key) inside the caller's transaction in one round trip: the
-- transaction-scoped advisory lock first, then, in a statement of its own
-- (a fresh snapshot, so it sees an answer committed by the lock's last
-- holder), the stored answer if any. locked = false: another request holds the key.
CREATE FUNCTION idempotency_claim(p_user_id uuid, p_key text, p_lock bigint)
RETURNS TABLE (locked boolean, fingerprint text, response_status integer, response_headers jsonb, response_body text)
LANGUAGE plpgsql AS $$
BEGIN
  IF NOT pg_try_advisory_xact_lock(p_lock) THEN
    RETURN QUERY SELECT false, NULL::text, NULL::integer, NULL::jsonb, NULL::text;
    RETURN;
  END IF;
  RETURN QUERY
    SELECT true, k.fingerprint, k.response_status, k.response_headers, k.response_body
    FROM (SELECT 1) AS one
    LEFT JOIN idempotency_keys k ON k.user_id = p_user_id AND k.key = p_key AND k.expires_at > now();
END;
$$;
