/**
 * Source addresses on loopback. A limiter "per IP" can only be told apart from one keyed per
 * token, or from one bucket for every client, by a second client address; on one machine the
 * loopback range 127.0.0.0/8 gives as many as needed (Linux answers on all of it; macOS only on
 * 127.0.0.1 unless aliased: `sudo ifconfig lo0 alias 127.0.0.2 up`). A target elsewhere sees
 * every process of this machine as one address. Pure.
 */

/** The hostname of a URL on IPv4 loopback (127.0.0.0/8 or localhost): another loopback address reaches it. */
export function onIpv4Loopback(url: string): boolean {
  let hostname: string;
  try {
    hostname = new URL(url).hostname;
  } catch {
    return false;
  }
  return hostname === 'localhost' || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/** Why a second source address can't reach the target at `url`, or undefined when one can. */
export function secondAddressUnreachable(url: string): string | undefined {
  if (onIpv4Loopback(url)) return undefined;
  const hostname = (() => {
    try {
      return new URL(url).hostname;
    } catch {
      return url;
    }
  })();
  if (hostname === '[::1]' || hostname === '::1') {
    return (
      'the target is on ::1, and IPv6 has one loopback address: ' +
      'serve it on 127.0.0.1 to compare two client addresses'
    );
  }
  return (
    `the target (${hostname}) is not on this machine's loopback, and one machine is one client address to it: ` +
    'a second address needs a second machine (k6 runners on their own nodes: docs/load-distributed.md)'
  );
}

/** The n-th address of 127.0.0.0/8 after `first` (127.0.0.2 + i by default). */
export function loopbackAddress(i: number, first = 2): string {
  const n = first + i;
  if (!Number.isInteger(n) || n < 1 || n > 254 * 256) throw new RangeError(`no loopback address number ${n}`);
  return `127.0.${Math.floor(n / 256)}.${n % 256}`;
}

/** A socket error that says this machine cannot send from the address (not configured on it). */
export function isAddressUnavailable(error: unknown): boolean {
  const code =
    (error as { code?: unknown; cause?: { code?: unknown } } | null)?.code ??
    (error as { cause?: { code?: unknown } } | null)?.cause?.code;
  return code === 'EADDRNOTAVAIL';
}
