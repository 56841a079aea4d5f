/** What a push carries: a title and a short preview, and where it leads; never a memory's whole text. */
export interface PushMessage {
  title: string;
  body: string;
  /** Extra keys for the app (book slug, kind), strings only (FCM's data map takes strings). */
  data: Record<string, string>;
}

/** The provider says the device is gone for good (410, Unregistered, UNREGISTERED): the device is removed. */
export class PushGone extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PushGone';
  }
}

/** A provider answer worth another try later (429, 5xx, no answer, anything but "gone"). */
export class PushFailed extends Error {
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
    this.name = 'PushFailed';
  }
}
