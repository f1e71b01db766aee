import { describe, expect, it } from 'vitest';
import { generateTlsMaterial } from '../../../harness/webhooks/receiver.ts';
import { cachedTlsMaterial, usable } from '../../../harness/webhooks/tls-cache.ts';

describe('the cached receiver certificate', () => {
  it('is reused while valid: two runs get the same CA and certificate', async () => {
    const first = await cachedTlsMaterial();
    const second = await cachedTlsMaterial();
    expect(second).toEqual(first);
    expect(usable(first)).toBe(true);
  });

  it('is made anew when it is about to expire, was signed by another CA, or is not whole', async () => {
    const material = await generateTlsMaterial();
    const other = await generateTlsMaterial();
    expect(usable(material)).toBe(true);
    // Made for 7 days: with less than a day left it is not reused.
    expect(usable(material, Date.now() + 6.5 * 24 * 60 * 60 * 1000)).toBe(false);
    expect(usable({ ...material, caCertPem: other.caCertPem })).toBe(false);
    expect(usable({ ...material, key: undefined })).toBe(false);
    expect(usable({ ...material, cert: 'not a certificate' })).toBe(false);
    expect(usable(null)).toBe(false);
  });
});
