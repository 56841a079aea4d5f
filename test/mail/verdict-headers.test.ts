import { describe, expect, it } from 'vitest';
import { verdictFromHeaders } from '../../src/mail/mail-authentication.js';
import { parseHeaderBlock } from '../../src/mail/raw-message.js';

const headers = (...lines: string[]) => parseHeaderBlock(lines.join('\r\n'));
const ID = 'mx.provider.test';

describe("verdictFromHeaders: the provider's Authentication-Results", () => {
  it('reads spf, dkim and dmarc, and proves the From domain only when aligned', () => {
    const v = verdictFromHeaders(
      headers(
        'Authentication-Results: mx.provider.test;',
        ' spf=pass smtp.mailfrom=bounce@mail.family.test;',
        ' dkim=pass header.d=family.test; dmarc=pass (p=reject) header.from=family.test',
        'From: Rose <rose@family.test>',
      ),
      ID,
    );
    expect(v).toEqual({ spf: 'pass', dkim: 'pass', dmarc: 'pass', fromDomain: 'family.test', fromAddress: 'rose@family.test', fromAuthenticated: true });
    const other = verdictFromHeaders(headers('Authentication-Results: mx.provider.test; spf=pass smtp.mailfrom=x@elsewhere.test; dkim=pass header.d=elsewhere.test; dmarc=none', 'From: rose@family.test'), ID);
    expect(other).toMatchObject({ spf: 'pass', dkim: 'pass', dmarc: 'none', fromAuthenticated: false });
  });

  it('believes only the field naming INBOUND_EMAIL_AUTHSERV_ID, never one the sender wrote, even on top', () => {
    const forged = 'Authentication-Results: attacker.test; spf=pass smtp.mailfrom=rose@family.test; dkim=pass header.d=family.test; dmarc=pass header.from=family.test';
    const provider = 'Authentication-Results: mx.provider.test; spf=fail smtp.mailfrom=rose@family.test; dkim=none; dmarc=fail header.from=family.test';
    expect(verdictFromHeaders(headers(provider, forged, 'From: rose@family.test'), 'mx.provider.test')).toMatchObject({ dmarc: 'fail', fromAuthenticated: false });
    expect(verdictFromHeaders(headers(forged, 'From: rose@family.test'), 'mx.provider.test')).toMatchObject({ spf: 'none', dkim: 'none', dmarc: 'none', fromAuthenticated: false });
  });

  it("reads no result from a comment or a quoted string, where a sender's own words may stand", () => {
    const crafted = 'Authentication-Results: mx.provider.test; spf=pass (sender "a dmarc=pass"@evil.test) smtp.mailfrom=x@evil.test; dmarc=fail header.from=family.test';
    expect(verdictFromHeaders(headers(crafted, 'From: rose@family.test'), ID)).toMatchObject({ spf: 'pass', dmarc: 'fail', fromAuthenticated: false });
    const commented = 'Authentication-Results: mx.provider.test; spf=none (dkim=pass header.d=family.test); dmarc=none';
    expect(verdictFromHeaders(headers(commented, 'From: rose@family.test'), ID)).toMatchObject({ dkim: 'none', fromAuthenticated: false });
  });

  it('aligns relaxed, by organisational domain from the Public Suffix List: co.uk-style names align with their own organisation only', () => {
    const v = (ar: string, from: string) => verdictFromHeaders(headers(`Authentication-Results: mx.provider.test; ${ar}`, `From: ${from}`), ID).fromAuthenticated;
    // A signature or envelope of another name of the same organisation proves the From domain.
    expect(v('dkim=pass header.d=mail.example.co.uk; dmarc=none', 'ann@example.co.uk')).toBe(true);
    expect(v('dkim=pass header.d=news.example.co.uk; dmarc=none', 'ann@mail.example.co.uk')).toBe(true);
    expect(v('spf=pass smtp.mailfrom=bounce@bounces.example.co.uk; dmarc=none', 'ann@example.co.uk')).toBe(true);
    expect(v('dkim=pass header.d=example.com.au; dmarc=none', 'ann@shop.example.com.au')).toBe(true);
    // A public suffix, a look-alike, and a neighbour under a shared suffix prove nothing.
    expect(v('dkim=pass header.d=co.uk; dmarc=none', 'ann@example.co.uk')).toBe(false);
    expect(v('dkim=pass header.d=example.co.uk.evil.test; dmarc=none', 'ann@example.co.uk')).toBe(false);
    expect(v('dkim=pass header.d=evil-example.co.uk; dmarc=none', 'ann@example.co.uk')).toBe(false);
    expect(v('spf=pass smtp.mailfrom=x@other.co.uk; dmarc=none', 'ann@example.co.uk')).toBe(false);
    expect(v('dkim=pass header.d=attacker.github.io; dmarc=none', 'ann@victim.github.io')).toBe(false);
    expect(v('dkim=pass header.d=github.io; dmarc=none', 'ann@victim.github.io')).toBe(false);
  });

  it("believes the topmost field only: the provider's own id further down, under another server's field, is not the provider's", () => {
    const claimed = 'Authentication-Results: mx.provider.test; spf=pass smtp.mailfrom=rose@family.test; dkim=pass header.d=family.test; dmarc=pass header.from=family.test';
    const relay = 'Authentication-Results: relay.provider.test; spf=none; dkim=none; dmarc=none';
    expect(verdictFromHeaders(headers(relay, claimed, 'From: rose@family.test'), ID)).toEqual({ spf: 'none', dkim: 'none', dmarc: 'none', fromDomain: 'family.test', fromAddress: 'rose@family.test', fromAuthenticated: false });
    // Below the provider's own field it is read for nothing either: the provider's verdict stands.
    const provider = 'Authentication-Results: mx.provider.test; spf=fail smtp.mailfrom=rose@family.test; dkim=none; dmarc=none';
    expect(verdictFromHeaders(headers(provider, claimed, 'From: rose@family.test'), ID)).toMatchObject({ spf: 'fail', dmarc: 'none', fromAuthenticated: false });
  });

  it('takes a DMARC pass for the From domain only when its header.from is that domain', () => {
    const v = (dmarc: string) => verdictFromHeaders(headers(`Authentication-Results: mx.provider.test; spf=none; dkim=none; ${dmarc}`, 'From: Rose <rose@family.test>'), ID);
    expect(v('dmarc=pass header.from=family.test').fromAuthenticated).toBe(true);
    expect(v('dmarc=pass header.from=FAMILY.test').fromAuthenticated).toBe(true);
    expect(v('dmarc=pass header.from=attacker.test')).toMatchObject({ dmarc: 'pass', fromAuthenticated: false });
    expect(v('dmarc=pass header.from=mail.family.test').fromAuthenticated).toBe(false);
    expect(v('dmarc=pass').fromAuthenticated).toBe(false);
  });

  it('proves no sender for a message with two From fields or a From of several addresses', () => {
    const ar = 'Authentication-Results: mx.provider.test; spf=pass smtp.mailfrom=rose@family.test; dkim=pass header.d=family.test; dmarc=pass header.from=family.test';
    expect(verdictFromHeaders(headers(ar, 'From: rose@family.test', 'From: ceo@family.test'), ID).fromAuthenticated).toBe(false);
    expect(verdictFromHeaders(headers(ar, 'From: rose@attacker.test, ceo@family.test'), ID).fromAuthenticated).toBe(false);
    expect(verdictFromHeaders(headers(ar, 'From: Rose <rose@family.test>, Ceo <ceo@family.test>'), ID).fromAuthenticated).toBe(false);
    // One mailbox whose display name repeats its address is one sender.
    expect(verdictFromHeaders(headers(ar, 'From: "rose@family.test" <rose@family.test>'), ID).fromAuthenticated).toBe(true);
  });

  it('reads the From address as the message\'s reader parses it: a comment naming another domain proves nothing for the member it names', () => {
    // `member@victim.test (@evil.test>)`: the address is member@victim.test; a pass for evil.test is no pass for victim.test.
    const ar = 'Authentication-Results: mx.provider.test; spf=pass smtp.mailfrom=x@evil.test; dkim=pass header.d=evil.test; dmarc=none';
    const v = verdictFromHeaders(headers(ar, 'From: member@victim.test (@evil.test>)'), ID);
    expect(v).toMatchObject({ fromDomain: 'victim.test', fromAddress: 'member@victim.test', fromAuthenticated: false });
    const quoted = verdictFromHeaders(headers(ar, 'From: "member@victim.test" <x@evil.test>'), ID);
    expect(quoted).toMatchObject({ fromDomain: 'evil.test', fromAddress: 'x@evil.test', fromAuthenticated: true });
    // A field nothing can read as one address proves no one.
    expect(verdictFromHeaders(headers(ar, 'From: member@victim.test <@evil.test>'), ID)).toMatchObject({ fromAuthenticated: false });
  });
});
