import { describe, expect, it } from 'vitest';
import { serverUrl } from '../../suites/rules/versioning.ts';

describe('versioning.suite.ts: serverUrl (VERSION-PATH-V1)', () => {
  it('returns the first server URL', () => {
    expect(serverUrl({ servers: [{ url: 'https://api.example.invalid/v1' }, { url: 'https://other/v2' }] })).toBe(
      'https://api.example.invalid/v1',
    );
  });

  it('fills the URL variables with their defaults, and an unknown one with nothing', () => {
    const doc = {
      servers: [
        {
          url: 'https://{host}/{base}/{missing}v1',
          variables: { host: { default: 'api.example.invalid' }, base: { default: 'calling' } },
        },
      ],
    };
    expect(serverUrl(doc)).toBe('https://api.example.invalid/calling/v1');
  });

  it('has no URL for a document without servers or with a server URL that is not a string', () => {
    expect(serverUrl({})).toBeUndefined();
    expect(serverUrl({ servers: [] })).toBeUndefined();
    expect(serverUrl({ servers: [{ url: 42 }] })).toBeUndefined();
  });
});
