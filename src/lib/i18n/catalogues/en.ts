/**
 * The contributor pages' messages in English: the source catalogue. Every
 * other language has one module like this one with the same keys (a test
 * fails on a missing or extra key, or one whose arguments differ). Messages
 * are ICU MessageFormat: `{n, plural, one {…} other {…}}` takes the CLDR
 * plural rules of the language, `{d, date, long}` its date format. `<b>`,
 * `<bdi>` and `<link>` are tags the page fills in (an emphasis, an isolated
 * piece of someone's own text, a link).
 */
export const en = {
  'page.brand': 'Memory Book',
  'lang.label': 'Language',
  'lang.change': 'Change',
  'error.prefix': 'Error',
  'error.summary': 'There is a problem',

  'form.eyebrow': 'A memory book',
  'form.pageTitle': 'Share a memory · {title}',
  'form.heading': 'Share a memory',
  'form.lead': 'A story, a moment, a wish: write it down, and add a photo if you have one.',
  'form.name': 'Your name',
  'form.text': 'Your memory',
  'form.textPlaceholder': 'I remember when…',
  'form.photo': 'A photo',
  'form.optional': '(optional)',
  'form.photoHint': 'JPEG, PNG, HEIC or WebP, up to {megabytes, number} MB.',
  'form.photoAlt': 'The photo you chose',
  'form.send': 'Send my memory',
  'form.sending': 'Sending…',
  'form.fine': 'The book’s organiser reads every memory before it goes into the book.',
  'form.wordsKept': 'Your words are kept below: nothing you wrote is lost.',

  'error.nameMissing': 'Please tell us your name.',
  'error.nameTooLong': 'Your name can be at most {max, number} characters.',
  'error.nameControl': 'Your name may not contain line breaks or other control characters.',
  'error.textMissing': 'Please write your memory.',
  'error.textTooLong': 'Your memory can be at most {max, number} characters; this one has {count, number}.',
  'error.photoTooBig': 'That photo is too big: photos can be up to {megabytes, number} MB. Please choose a smaller one.',
  'error.photoTooBigHere': 'That photo is {size} MB; photos can be up to {megabytes, number} MB. Choose a smaller one.',
  'error.notPhoto': 'That file is not a photo. Choose a picture (JPEG, PNG, HEIC or WebP).',
  'error.tooManyPixels': 'This picture has {megapixels, number} megapixels; pictures may have at most {max, number}. Please choose a smaller one.',
  'error.noRoom': 'This book has no room for more photos right now. You can send your memory without the photo.',
  'error.photoAgain': 'Please add your photo again.',
  'error.oneFile': 'Please send one photo at a time.',
  'error.incomplete': 'The form arrived incomplete. Please try again.',

  'thanks.pageTitle': 'Thank you · {title}',
  'thanks.heading': 'Thank you!',
  'thanks.lead': 'Your memory is on its way to “<bdi>{title}</bdi>”. The organiser will read it soon, and it will help make this book something to treasure.',
  'thanks.another': 'Share another memory',

  'closed.pageTitle': 'Memory book not found',
  'closed.heading': 'This memory book isn’t open here',
  'closed.lead': 'The link may be incomplete, or the book may not be taking memories at the moment.',
  'closed.help': 'If someone sent you this link, check that you have all of it, or ask them for a new one.',

  'wait.pageTitle': 'Please wait a moment',
  'wait.lead': 'A lot of memories have been sent from your connection in a short time, so this one was not sent.',
  'wait.retry': 'Please try again in {minutes, plural, one {# minute} other {# minutes}}. Your browser’s back button takes you back to what you wrote.',

  'mail.invite.subject': '{inviter} invited you to "{title}"',
  'mail.invite.body': '{inviter} invited you to {role, select, admin {help run} other {add your memories to}} the memory book "{title}".\n\nAccept the invitation here:\n{url}\n\nThe link works for {days, plural, one {# more day} other {# more days}}, until {expires, date, long}. If you did not expect this invitation, you can ignore this message.\n',
  'mail.added.subject': 'You were added to "{title}"',
  'mail.added.body': '{inviter} added you as {role, select, admin {an admin} other {a contributor}} of the memory book "{title}".\n\nSign in to find it among your books: {url}\n',

  'nav.signIn': 'Sign in',
  'nav.signUp': 'Create an account',
  'nav.signOut': 'Sign out',
  'nav.tokens': 'API tokens',

  'invite.eyebrow': 'Invitation',
  'invite.pageTitle': 'Invitation to {title}',
  'invite.who': '<b>{inviter}</b> invited you to join this memory book as <b>{role, select, admin {an admin} other {a contributor}}</b>.',
  'invite.whoAnon': 'You are invited to join this memory book as <b>{role, select, admin {an admin} other {a contributor}}</b>.',
  'invite.does': '{role, select, admin {You will help run the book: invite people, and choose which memories go in.} other {You will be able to share memories and photos in the book.}}',
  'invite.already': 'You are already {role, select, owner {the owner} admin {an admin} other {a contributor}} of this book; accepting keeps your role.',
  'invite.accept': 'Accept invitation',
  'invite.acceptingAs': 'Accepting as <bdi>{email}</bdi>. Not you? Sign out from the top of the page.',
  'invite.toAccept': 'To accept, create a free account or sign in. You will come straight back here.',
  'invite.forAddress': 'This invitation is for <b>{email}</b>.',
  'invite.createAccount': 'Create an account',
  'invite.haveAccount': 'I already have an account',
  'invite.openUntil': 'This invitation is open until {date, date, long}.',
  'welcome.eyebrow': 'You’re in',
  'welcome.title': 'Welcome to {title}',
  'welcome.now': 'You are now {role, select, admin {an admin} other {a contributor}} of this book.',
  'welcome.share': 'Share a memory',
  'welcome.account': 'Your account',
  'other.title': 'This invitation is for another address',
  'other.sentTo': 'It was sent to <b>{email}</b>, and only the account with that address can accept it. You are signed in as <bdi>{you}</bdi>.',
  'other.how': 'If <bdi>{email}</bdi> is yours, sign out, then open this link again and sign in (or sign up) with it. Otherwise, ask the person who invited you to invite this address instead.',
  'problem.notFound.title': 'We couldn’t find this invitation',
  'problem.notFound': 'The link may be incomplete: check that you opened the whole link from your invitation, or ask for a new one.',
  'problem.expired.title': 'This invitation has expired',
  'problem.expired': 'Invitations stay open for {days, plural, one {# day} other {# days}}. Ask the person who invited you to send a new one.',
  'problem.revoked.title': 'This invitation was withdrawn',
  'problem.revoked': 'The book’s owner or an admin withdrew it. If you think that was a mistake, ask them for a new one.',
  'problem.accepted.title': 'This invitation has already been used',
  'problem.accepted': 'Someone has already accepted it. If that was you, sign in with the account you used; otherwise ask for an invitation of your own.',
  'problem.full.title': 'This book is full',
  'problem.full': 'The book already has as many members as its plan allows, so you could not join. Let the person who invited you know: they can make room, or move the book to a bigger plan.',
  'problem.paused.title': 'This book is paused',
  'problem.paused': 'The book is paused for now, so no one can join it. Ask the person who invited you to try again later.',
} as const;

export type MessageKey = keyof typeof en;
export type Catalogue = Record<MessageKey, string>;
