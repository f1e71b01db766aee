/**
 * A worker's view of the run: the run context it was given (./context.ts, injected once), one API
 * client (so one throttle and one request count per worker; remote runs use a single worker), the
 * contract, the control and receiver clients when this configuration has them, and its end of the
 * run channel (./channel-client.ts).
 */
import { inject } from 'vitest';
import { createContract, type Contract } from '../../contract/validator.ts';
import { createApiClient, type ApiClient } from '../http/client.ts';
import { secretVariables } from '../report/curl.ts';
import { createControlTransport, type ControlTransport } from '../seams/control-client.ts';
import { channelClient, type ChannelClient } from './channel-client.ts';
import type { RunContext, RunTarget } from './context.ts';
import { createReceiverClient, type ReceiverClient } from '../seams/receiver-client.ts';
import { createOneTimeWatch } from '../http/one-time-watch.ts';
import { createTargetClock, type ClockReading, type TargetClock } from '../seams/target-clock.ts';

export interface Session {
  readonly context: RunContext;
  /** The context's target (what most callers want). */
  readonly target: RunTarget;
  readonly api: ApiClient;
  readonly contract: Contract;
  /** The test-control endpoint's transport; each check gets its own client over it (harness/checks/check.ts). */
  readonly control: ControlTransport | undefined;
  readonly receiver: ReceiverClient | undefined;
  /** The target's clock as the run read it: signature freshness is judged against it or real time. */
  readonly targetClock: TargetClock;
  /** The run channel (./channel.ts): the journals, the clock readings, the watch, the gate. */
  readonly channel: ChannelClient;
}

let current: Session | undefined;

export function session(): Session {
  if (current !== undefined) return current;
  const context = inject('run');
  const { target } = context;
  const control = target.control === undefined ? undefined : createControlTransport(target.control);
  const channel = channelClient(context.channel);
  const targetClock = createTargetClock({
    log: {
      record: async (reading) => {
        await channel.call('/clock/record', { reading });
      },
      readings: (url) => channel.call<ClockReading[]>('/clock/readings', { url }),
    },
    url: target.control?.url,
    read:
      control === undefined || !target.control!.offered.includes('clock')
        ? undefined
        : async () => {
            const now = (await control.inspect('clock'))?.now;
            if (typeof now !== 'number') throw new Error('the clock inspection answered without a numeric now');
            return now;
          },
  });
  const oneTimeWatch = createOneTimeWatch();
  current = {
    context,
    target,
    api: createApiClient({
      oneTimeWatch,
      baseUrl: target.baseUrl,
      timeoutMs: target.requestTimeoutMs,
      requestsPerMinute: target.requestsPerMinute,
      rateWindowMs: target.rateWindowMs,
      secrets: [...target.secrets, ...(target.receiverToken === undefined ? [] : [target.receiverToken])],
      secretVariables: secretVariables(target.tokens, target.oauth),
    }),
    contract: createContract({ cacheDirectory: context.cacheDirectory }),
    control,
    targetClock,
    channel,
    receiver:
      target.receiverLocalUrl === undefined || target.receiverPublicUrl === undefined
        ? undefined
        : createReceiverClient({
            queryUrl: target.receiverLocalUrl,
            publicUrl: target.receiverPublicUrl,
            caPem: target.receiverCaPem,
            token: target.receiverToken,
            remote: target.receiverRemote,
            clock: targetClock,
            oneTime: oneTimeWatch,
          }),
  };
  return current;
}
