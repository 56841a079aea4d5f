-- Collaboration: the member list's orderings, and invitations.

-- GET /books/{slug}/members/: newest first, and oldest change first when syncing.
CREATE INDEX book_members_book_joined_idx ON book_members (book_id, joined_at DESC, user_id DESC);
CREATE INDEX book_members_book_updated_idx ON book_members (book_id, updated_at, user_id);

-- An invitation to a book by email, phone (E.164) or Telegram handle, stored
-- normalised (lower-cased email, E.164 phone, handle without @, lower-cased).
CREATE TABLE invitations (
  id uuid PRIMARY KEY,
  book_id uuid NOT NULL REFERENCES books (id) ON DELETE CASCADE,
  identifier_type text NOT NULL CHECK (identifier_type IN ('email', 'phone', 'telegram')),
  identifier text NOT NULL,
  role text NOT NULL CHECK (role IN ('admin', 'contributor')),
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted', 'expired', 'revoked')),
  invited_by uuid REFERENCES users (id) ON DELETE SET NULL,
  -- The user who became a member through it (at once, or when the invitation was accepted).
  accepted_user_id uuid REFERENCES users (id) ON DELETE SET NULL,
  -- SHA-256 of the random token in the acceptance link; the token itself is only ever sent to the invitee.
  token_hash bytea NOT NULL UNIQUE,
  -- Telegram: the bot's deep link (https://t.me/<bot>?start=<token>) for the inviter to pass on;
  -- a bot cannot write to someone who has not written to it first.
  deep_link text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  accepted_at timestamptz,
  revoked_at timestamptz
);
CREATE TRIGGER invitations_updated_at BEFORE UPDATE ON invitations FOR EACH ROW EXECUTE FUNCTION set_updated_at();
-- At most one pending invitation per identifier and book (409 invitation_pending); revoked, expired and accepted ones never block.
CREATE UNIQUE INDEX invitations_one_pending ON invitations (book_id, identifier_type, identifier) WHERE status = 'pending';
CREATE INDEX invitations_book_created_idx ON invitations (book_id, created_at DESC, id DESC);
CREATE INDEX invitations_book_updated_idx ON invitations (book_id, updated_at, id);
-- Expiry sweeps, and inbound activation looking a number or handle up across books.
CREATE INDEX invitations_pending_expiry_idx ON invitations (expires_at) WHERE status = 'pending';
CREATE INDEX invitations_pending_identifier_idx ON invitations (identifier_type, identifier) WHERE status = 'pending';
