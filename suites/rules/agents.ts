/** The rules of agents.suite.ts that need no target: pure, so test/suites/agents.test.ts can hold them. */
import { CREDENTIAL_FIELD_PATTERN } from '../../contract/openapi.ts';

/** Every key path in a JSON value whose name looks like a credential, at any depth. */
export function credentialPaths(value: unknown, path = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => credentialPaths(item, `${path}[${index}]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => [
    ...(CREDENTIAL_FIELD_PATTERN.test(key) ? [`${path}.${key}`] : []),
    ...credentialPaths(inner, `${path}.${key}`),
  ]);
}
