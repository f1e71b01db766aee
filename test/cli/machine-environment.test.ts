import { afterEach, describe, expect, it } from 'vitest';
import { machineEnvironment } from '../../cli/machine-environment.ts';

const names = [
  'NODE_EXTRA_CA_CERTS',
  'HTTPS_PROXY',
  'API_BASE_URL',
  'TOKEN_ALL',
  'PROPERTY_SEED',
  'OCC_SOMETHING',
  'VITEST_POOL_ID',
];
const saved = Object.fromEntries(names.map((name) => [name, process.env[name]]));
afterEach(() => {
  for (const name of names) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

describe('the environment of a child run', () => {
  it("keeps the machine's trust and proxy settings, drops the suite's configuration, hand-offs, test markers", () => {
    Object.assign(process.env, {
      NODE_EXTRA_CA_CERTS: '/etc/ca.pem',
      HTTPS_PROXY: 'http://proxy:3128',
      API_BASE_URL: 'https://dev/v1',
      TOKEN_ALL: 'tok',
      PROPERTY_SEED: '7',
      OCC_SOMETHING: '1',
      VITEST_POOL_ID: '3',
    });
    const env = machineEnvironment();
    expect(env).toMatchObject({
      NODE_EXTRA_CA_CERTS: '/etc/ca.pem',
      HTTPS_PROXY: 'http://proxy:3128',
      PATH: process.env.PATH,
    });
    for (const dropped of ['API_BASE_URL', 'TOKEN_ALL', 'PROPERTY_SEED', 'OCC_SOMETHING', 'VITEST_POOL_ID'])
      expect(env).not.toHaveProperty(dropped);
    expect(machineEnvironment((name) => name === 'PROPERTY_SEED')).toMatchObject({ PROPERTY_SEED: '7' });
  });
});
