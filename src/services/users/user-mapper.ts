import { etagOf } from '../../lib/etag.js';
import type { UserRow } from './user-types.js';

export function toProfile(u: UserRow) {
  return {
    id: u.id,
    email: u.email,
    phone_number: u.phone_number,
    first_name: u.first_name,
    last_name: u.last_name,
    books_sort: u.books_sort,
    telegram_chat_id: u.telegram_chat_id,
    telegram_username: u.telegram_username,
    imessage_identifier: u.imessage_identifier,
    is_staff: u.is_staff,
    date_joined: u.date_joined,
    updated_at: u.updated_at,
    etag: etagOf(u.updated_at),
  };
}
