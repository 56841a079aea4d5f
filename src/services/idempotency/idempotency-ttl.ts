/** How long a stored answer replays for its Idempotency-Key (the contract's Limits table: 24 hours). */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
