import { describe, expect, it } from 'vitest';
import { verdictFromHeaders } from '../../src/mail/mail-authentication.js';
import { parseHeaderBlock } from '../../src/mail/raw-message.js';

const headers = (...lines: string[]) => parseHeaderBlock(lines.join('\r\n'));

describe("verdictFromHeaders: the provider's Authentication-Results", () => {
  it('reads spf, dkim and dmarc, and proves the From domain only when aligned', () => {
    const v = verdictFromHeaders(
      headers(
        'Authentication-Results: mx.provider.test;',
        ' spf=pass smtp.mailfrom=bounce@mail.family.test;',
        ' dkim=pass header.d=family.test; dmarc=pass (p=reject) header.from=family.test',
        'From: Rose <rose@family.test>',
      ),
    );
    expect(v).toEqual({ spf: 'pass', dkim: 'pass', dmarc: 'pass', fromDomain: 'family.test', fromAuthenticated: true });
    const other = verdictFromHeaders(headers('Authentication-Results: mx.provider.test; spf=pass smtp.mailfrom=x@elsewhere.test; dkim=pass header.d=elsewhere.test; dmarc=none', 'From: rose@family.test'));
    expect(other).toMatchObject({ spf: 'pass', dkim: 'pass', dmarc: 'none', fromAuthenticated: false });
  });

  it('with INBOUND_EMAIL_AUTHSERV_ID, believes only the field naming it, never one the sender wrote', () => {
    const forged = 'Authentication-Results: attacker.test; spf=pass smtp.mailfrom=rose@family.test; dkim=pass header.d=family.test; dmarc=pass header.from=family.test';
    const provider = 'Authentication-Results: mx.provider.test; spf=fail smtp.mailfrom=rose@family.test; dkim=none; dmarc=fail header.from=family.test';
    expect(verdictFromHeaders(headers(provider, forged, 'From: rose@family.test'), 'mx.provider.test')).toMatchObject({ dmarc: 'fail', fromAuthenticated: false });
    expect(verdictFromHeaders(headers(forged, 'From: rose@family.test'), 'mx.provider.test')).toMatchObject({ spf: 'none', dkim: 'none', dmarc: 'none', fromAuthenticated: false });
  });

  it("reads no result from a comment or a quoted string, where a sender's own words may stand", () => {
    const crafted = 'Authentication-Results: mx.provider.test; spf=pass (sender "a dmarc=pass"@evil.test) smtp.mailfrom=x@evil.test; dmarc=fail header.from=family.test';
    expect(verdictFromHeaders(headers(crafted, 'From: rose@family.test'))).toMatchObject({ spf: 'pass', dmarc: 'fail', fromAuthenticated: false });
    const commented = 'Authentication-Results: mx.provider.test; spf=none (dkim=pass header.d=family.test); dmarc=none';
    expect(verdictFromHeaders(headers(commented, 'From: rose@family.test'))).toMatchObject({ dkim: 'none', fromAuthenticated: false });
  });
});
