import { describe, expect, it } from 'vitest';
import { AppError } from '../../errors.js';
import { nextModerationState, type ModerationState, type ModerationTrigger } from './moderation.js';

const pending: ModerationState = { status: 'pending', isPinned: false };
const approved: ModerationState = { status: 'approved', isPinned: false };
const pinned: ModerationState = { status: 'approved', isPinned: true };
const rejected: ModerationState = { status: 'rejected', isPinned: false };

/** [from, trigger, changed, to, share card cleared] — or 'invalid' for 409. */
const TABLE: [ModerationState, ModerationTrigger, boolean | 'invalid', ModerationState?, boolean?][] = [
  [pending, 'approve', true, approved, false],
  [pending, 'reject', true, rejected, false],
  [pending, 'pin', 'invalid'],
  [pending, 'unpin', false, pending, false],
  [pending, 'author_edit', false, pending, false],
  [approved, 'approve', false, approved, false],
  [approved, 'reject', true, rejected, true],
  [approved, 'pin', true, pinned, false],
  [approved, 'unpin', false, approved, false],
  [approved, 'author_edit', true, pending, true],
  [pinned, 'approve', false, pinned, false],
  [pinned, 'reject', true, rejected, true],
  [pinned, 'pin', false, pinned, false],
  [pinned, 'unpin', true, approved, false],
  [pinned, 'author_edit', true, pending, true],
  [rejected, 'approve', true, approved, false],
  [rejected, 'reject', false, rejected, false],
  [rejected, 'pin', 'invalid'],
  [rejected, 'unpin', false, rejected, false],
  [rejected, 'author_edit', false, rejected, false],
];

describe('nextModerationState', () => {
  it.each(TABLE)('%o %s', (from, trigger, changed, to, cleared) => {
    if (changed === 'invalid') {
      expect(() => nextModerationState(from, trigger)).toThrow(AppError);
      try {
        nextModerationState(from, trigger);
      } catch (err) {
        expect((err as AppError).code).toBe('invalid_state');
        expect((err as AppError).status).toBe(409);
      }
      return;
    }
    expect(nextModerationState(from, trigger)).toEqual({ changed, next: to, clearShareCard: cleared });
  });

  it('never leaves a pinned row that is not approved', () => {
    for (const [from, trigger, changed] of TABLE) {
      if (changed === 'invalid') continue;
      const { next } = nextModerationState(from, trigger);
      expect(!next.isPinned || next.status === 'approved').toBe(true);
    }
  });
});
