-- POST /books/ in one statement (one round trip instead of four): the book
-- under the first free slug of the candidates, its owner's membership and its
-- first billing record. A taken slug is skipped (ON CONFLICT DO NOTHING keeps
-- the transaction usable); when every candidate is taken no row comes back.
-- p_plan NULL stands for the default plan.
CREATE FUNCTION create_book(
  p_slugs text[], p_id uuid, p_owner uuid, p_title text, p_subtitle text, p_theme text,
  p_settings jsonb, p_use_case text, p_is_public boolean, p_plan text, p_billing_id uuid
) RETURNS SETOF books LANGUAGE plpgsql AS $$
DECLARE
  v_plan text := coalesce(p_plan, (SELECT slug FROM plans WHERE is_default ORDER BY sort_order, slug LIMIT 1));
  v_slug text;
  v_book books;
BEGIN
  FOREACH v_slug IN ARRAY p_slugs LOOP
    INSERT INTO books (id, slug, owner_id, title, subtitle, theme, settings, use_case_slug, is_public, plan_slug)
    VALUES (p_id, v_slug, p_owner, p_title, p_subtitle, p_theme, p_settings, p_use_case, p_is_public, v_plan)
    ON CONFLICT (slug) DO NOTHING
    RETURNING * INTO v_book;
    IF FOUND THEN
      INSERT INTO book_members (book_id, user_id, role) VALUES (p_id, p_owner, 'owner');
      INSERT INTO billing_records (id, book_id, plan_slug, status, period_start, period_end, grace_period_ends_at)
      VALUES (p_billing_id, p_id, v_plan, 'active', now(), NULL, NULL);
      RETURN NEXT v_book;
      RETURN;
    END IF;
  END LOOP;
END;
$$;
