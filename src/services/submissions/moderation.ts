import { errors } from '../../errors.js';
import type { SubmissionStatus } from './submission-types.js';

/** The moderation routes' actions (the `action` of a moderation result). */
export const MODERATION_ACTIONS = ['approve', 'reject', 'pin', 'unpin'] as const;
export type ModerationAction = (typeof MODERATION_ACTIONS)[number];

/**
 * What can move a submission: a moderation action, or `author_edit` — a
 * contributor author editing their row, or `media_change` — any upload or
 * deletion of its media, by whoever may make it — which must send an approved
 * memory back for review.
 */
export type ModerationTrigger = ModerationAction | 'author_edit' | 'media_change';

export interface ModerationState {
  status: SubmissionStatus;
  isPinned: boolean;
}

export interface ModerationMove {
  /** False when the row already is where the trigger leads: answered 200 `changed: false`, nothing written. */
  changed: boolean;
  next: ModerationState;
  /** The share card shows an approved version that is no longer approved: drop it. */
  clearShareCard: boolean;
}

const stay = (s: ModerationState): ModerationMove => ({ changed: false, next: s, clearShareCard: false });
const go = (next: ModerationState, clearShareCard = false): ModerationMove => ({ changed: true, next, clearShareCard });

/**
 * The one moderation state machine; every status or pin change goes through it.
 * approve: pending|rejected → approved. reject: pending|approved → rejected
 * (unpinned, share card cleared). pin: only approved (else 409 invalid_state).
 * unpin: pinned → unpinned, otherwise a no-op in any state. author_edit and
 * media_change: approved → pending (unpinned, share card cleared), otherwise a no-op.
 * A move to the state already held is a no-op (`changed: false`).
 */
export function nextModerationState(current: ModerationState, trigger: ModerationTrigger): ModerationMove {
  switch (trigger) {
    case 'approve':
      return current.status === 'approved' ? stay(current) : go({ status: 'approved', isPinned: false });
    case 'reject':
      return current.status === 'rejected' ? stay(current) : go({ status: 'rejected', isPinned: false }, current.status === 'approved');
    case 'pin':
      if (current.status !== 'approved') {
        throw errors.invalidState(`Only an approved submission can be pinned; this one is ${current.status}.`, {
          action: 'pin',
          status: current.status,
          allowed_from: ['approved'],
        });
      }
      return current.isPinned ? stay(current) : go({ status: 'approved', isPinned: true });
    case 'unpin':
      return current.isPinned ? go({ status: current.status, isPinned: false }) : stay(current);
    case 'author_edit':
    case 'media_change':
      return current.status === 'approved' ? go({ status: 'pending', isPinned: false }, true) : stay(current);
  }
}
