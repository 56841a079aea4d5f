export const BOOKS_SORTS = ['activity', 'title', 'created', 'role'] as const;
export type BooksSort = (typeof BOOKS_SORTS)[number];

export interface UserRow {
  id: string;
  email: string;
  password_hash: string | null;
  first_name: string;
  last_name: string;
  books_sort: BooksSort;
  phone_number: string | null;
  telegram_chat_id: string | null;
  telegram_username: string | null;
  imessage_identifier: string | null;
  is_staff: boolean;
  is_active: boolean;
  date_joined: string;
  updated_at: string;
}

/** Profile fields a user may change through the API. */
export const WRITABLE_PROFILE_FIELDS = ['first_name', 'last_name', 'books_sort'] as const;
/** Fields the profile shows but the API never changes (400 validation_failed when sent). */
export const READ_ONLY_PROFILE_FIELDS = [
  'id',
  'email',
  'phone_number',
  'telegram_chat_id',
  'telegram_username',
  'imessage_identifier',
  'is_staff',
  'date_joined',
  'updated_at',
  'etag',
] as const;
