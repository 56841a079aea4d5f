/** Stripe's configuration: all three variables or none, a price per plan, the client's address from STRIPE_API_BASE. */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config/config.js';
import { testConfig } from '../../helpers/build-test-app.js';

const problemsOf = (env: Record<string, string>) => {
  try {
    testConfig(env);
    return [];
  } catch (err) {
    return (err as ConfigError).problems;
  }
};

describe('Stripe configuration', () => {
  it('is off by default, with a 14-day grace period', () => {
    const config = testConfig();
    expect(config.billing).toEqual({ graceDays: 14, stripe: null });
  });

  it('reads the keys, the plan prices and where the API is', () => {
    const config = testConfig({
      STRIPE_SECRET_KEY: 'sk_test_abc',
      STRIPE_WEBHOOK_SECRET: 'whsec_abc',
      STRIPE_PRICES: 'plus=price_1Plus, premium=price_1Premium',
      STRIPE_API_BASE: 'http://127.0.0.1:12111',
      BILLING_GRACE_DAYS: '7',
    });
    expect(config.billing).toEqual({
      graceDays: 7,
      stripe: { secretKey: 'sk_test_abc', webhookSecret: 'whsec_abc', prices: { plus: 'price_1Plus', premium: 'price_1Premium' }, api: { protocol: 'http', host: '127.0.0.1', port: 12111 } },
    });
    expect(testConfig({ STRIPE_SECRET_KEY: 'sk_test_abc', STRIPE_WEBHOOK_SECRET: 'whsec_abc', STRIPE_PRICES: 'plus=price_1' }).billing.stripe!.api).toEqual({ protocol: 'https', host: 'api.stripe.com', port: 443 });
  });

  it('names each mistake', () => {
    expect(problemsOf({ STRIPE_SECRET_KEY: 'sk_test_abc' })).toEqual(['STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET, STRIPE_PRICES: set all of them or none']);
    expect(problemsOf({ STRIPE_SECRET_KEY: 'sk_test_abc', STRIPE_WEBHOOK_SECRET: 'whsec_abc', STRIPE_PRICES: 'plus:price_1' })[0]).toMatch(/^STRIPE_PRICES: expected plan=price_id pairs/);
    expect(problemsOf({ STRIPE_SECRET_KEY: 'sk_test_abc', STRIPE_WEBHOOK_SECRET: 'whsec_abc', STRIPE_PRICES: 'plus=price_1', STRIPE_API_BASE: 'ftp://x' })[0]).toMatch(/^STRIPE_API_BASE/);
    expect(problemsOf({ BILLING_GRACE_DAYS: '0' })[0]).toMatch(/^BILLING_GRACE_DAYS/);
  });
});
