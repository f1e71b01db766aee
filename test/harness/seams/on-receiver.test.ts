/**
 * A target that delivers within a millisecond of POST /hooks (the reference with its conformant
 * variant deliver-on-subscribe: the account's activity sends one event of the kind to every active
 * subscription of it, the new one included, before POST /hooks answers) meets no path the receiver
 * does not know: `onReceiver` registers the path and its plan before POST /hooks and gives the
 * secret after. `create` here waits until the target has finished that delivery before it returns,
 * so an order that registered the path after POST /hooks would find it refused 404: this test fails
 * on that order, with either receiver (local and verifying, or the store-only service).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckTools } from '../../../harness/checks/check.ts';
import { createReceiverClient, type ReceiverClient } from '../../../harness/seams/receiver-client.ts';
import { onReceiver } from '../../../harness/seams/subscriptions.ts';
import { startReceiver, type Receiver } from '../../../harness/webhooks/receiver.ts';
import { startReferenceServer, type ReferenceServer } from '../../../reference/server.ts';
import { control, postJson } from '../../reference/helpers.ts';

const TOKEN = 'receiver-service-token';

interface Setting {
  readonly receiver: Receiver;
  readonly client: ReceiverClient;
  readonly reference: ReferenceServer;
}

/** The receiver (local, or store-only with a token) and the reference with the variant, trusting it. */
async function setting(storeOnly: boolean): Promise<Setting> {
  const receiver = storeOnly
    ? await startReceiver({ storeOnly: true, token: TOKEN, loopbackQueryPort: true })
    : await startReceiver();
  const client = createReceiverClient(
    storeOnly
      ? { queryUrl: receiver.queryUrl!, publicUrl: receiver.url, token: TOKEN, remote: true }
      : { queryUrl: receiver.localUrl, publicUrl: receiver.url, caPem: receiver.caCertPem, remote: false },
  );
  const reference = await startReferenceServer({
    rateLimit: false,
    clockScale: 0,
    trustedCaPem: [receiver.caCertPem!],
    variants: ['deliver-on-subscribe'],
  });
  return { receiver, client, reference };
}

describe.each([
  ['a local receiver (it verifies too)', false],
  ['a store-only receiver service (the suite verifies)', true],
])('onReceiver, with %s', (_title, storeOnly) => {
  let s: Setting;
  beforeAll(async () => {
    s = await setting(storeOnly);
  });
  afterAll(async () => {
    await s.reference.close();
    await s.receiver.close();
  });

  /** POST /hooks of `event` to `path`; returns once the target has no delivery attempt in flight. */
  const create = (path: string, event: string) => async () => {
    const res = await postJson(s.reference, '/hooks', s.reference.fixtures.tokens.all, {
      event,
      target_url: s.client.targetFor(path),
    });
    expect(res.status, res.rawBody).toBe(200);
    await control(s.reference, 'POST', '/idle');
    return res.json as { id: string; secret: string };
  };
  const t = () => ({ target: { receiverLocalUrl: s.receiver.localUrl }, receiver: s.client }) as unknown as CheckTools;

  it('keeps the delivery that came before POST /hooks answered, answers it by its plan, judges it', async () => {
    const path = `/hooks/lead.completed/${storeOnly ? 'svc' : 'local'}-first`;
    await onReceiver(t(), path, { plan: [{ status: 202 }] }, create(path, 'lead.completed'));
    const list = await s.client.deliveries(path);
    expect(list).toHaveLength(1);
    expect(list[0]!.refusal, JSON.stringify(list[0]!.refusal)).toBeUndefined();
    expect(list[0]).toMatchObject({ answeredStatus: 202, signature: { ok: true } });
    expect(list[0]!.eventId).toMatch(/.+/);
  });

  it("another check's subscription of the kind gets the new one's event too, on a path it knows", async () => {
    const first = `/hooks/dnc.added/${storeOnly ? 'svc' : 'local'}-a`;
    const second = `/hooks/dnc.added/${storeOnly ? 'svc' : 'local'}-b`;
    await onReceiver(t(), first, {}, create(first, 'dnc.added'));
    await onReceiver(t(), second, {}, create(second, 'dnc.added'));
    const a = await s.client.deliveries(first);
    const b = await s.client.deliveries(second);
    expect(a.map((d) => d.refusal)).toEqual([undefined, undefined]);
    expect(b.map((d) => d.refusal)).toEqual([undefined]);
    // The second creation's event reached both.
    expect(a[1]!.eventId).toBe(b[0]!.eventId);
  });
});
