/**
 * Toxiproxy (Shopify's network-fault proxy) as the project's own tests and benchmarks drive it:
 * the pinned server (tools/install-toxiproxy.sh) started on a loopback port, proxies created and
 * toxics added or removed through its HTTP API, and the server stopped with nothing left behind.
 *
 * It lives in bench/ beside the other helpers of the benchmark scripts (results.ts, options.ts):
 * bench/network-faults.ts is its user, and test/bench/toxiproxy.test.ts proves it. tools/ holds
 * only the installers and their Go modules; the suite itself (harness/, cli/) never needs it.
 *
 * Loopback only: every address it listens on or forwards to is in 127.0.0.0/8, checked before use.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { Client } from 'undici';
import { freeLoopbackPort } from '../cli/loopback-port.ts';
import { machineEnvironment } from '../cli/machine-environment.ts';
import { packageRoot } from '../cli/package-root.ts';

/** How long the server may take to answer its API after it starts: a hang guard for a busy machine. */
const START_GUARD_MS = 20_000;
/** How long a stopped server may take to exit before it is killed. */
const STOP_GRACE_MS = 5_000;
/** Attempts at a free API port: another process may bind the one chosen before the server does. */
const START_ATTEMPTS = 3;

/** One toxic as Toxiproxy's API takes it (POST /proxies/{proxy}/toxics); `name` defaults to type_stream. */
export interface ToxicSpec {
  readonly type: 'latency' | 'bandwidth' | 'slicer' | 'timeout' | 'reset_peer' | 'limit_data' | 'slow_close';
  readonly stream: 'upstream' | 'downstream';
  /** The probability that a connection gets the toxic (Toxiproxy draws it once per connection). */
  readonly toxicity?: number;
  readonly attributes: Readonly<Record<string, number>>;
  readonly name?: string;
}

export interface ToxiProxy {
  readonly name: string;
  /** The loopback port it listens on, bound by Toxiproxy when the proxy was created. */
  readonly port: number;
}

export interface ToxiproxyServer {
  /** Its API's origin, e.g. `http://127.0.0.1:20345`. */
  readonly apiUrl: string;
  /** The server's process id (gone once `stop` resolves). */
  readonly pid: number;
  /** A proxy listening on a loopback port to `upstream` (`127.0.0.1:<port>`), no toxic yet. */
  createProxy(name: string, upstream: string): Promise<ToxiProxy>;
  /** Adds a toxic to a proxy; resolves with the toxic's name. Existing connections get it too. */
  addToxic(proxy: string, toxic: ToxicSpec): Promise<string>;
  removeToxic(proxy: string, toxic: string): Promise<void>;
  /** Kills the server (its proxies and their connections end with it) and closes the API client. */
  stop(): Promise<void>;
}

/** `host:port` when its host is in 127.0.0.0/8; anything else throws (the benchmarks stay on loopback). Pure. */
export function loopbackAddress(address: string): string {
  const match = /^(\d+)\.(\d+)\.(\d+)\.(\d+):(\d+)$/.exec(address);
  const loopback = match !== null && match[1] === '127' && match.slice(2, 5).every((part) => Number(part) < 256);
  if (!loopback || Number(match[5]) > 65_535) throw new Error(`not a loopback address (127.0.0.0/8): ${address}`);
  return address;
}

/**
 * The path of the pinned server: the install script's last line of stdout. `build: false` only
 * looks in the cache (`--cached`: no network, a one-line error naming the command that builds it).
 */
export function toxiproxyBinary(options: { build: boolean }): string {
  const script = join(packageRoot, 'tools/install-toxiproxy.sh');
  const args = options.build ? [script] : [script, '--cached'];
  // OCC_CACHE_DIR is the cache root the script shares with .ci/run's build: it must reach the script.
  const env = machineEnvironment((name) => name === 'OCC_CACHE_DIR');
  const result = spawnSync('bash', args, { encoding: 'utf8', env });
  const path = result.stdout.trim().split('\n').at(-1) ?? '';
  if (result.status !== 0 || path === '')
    throw new Error(result.stderr.trim().split('\n').at(-1) || `tools/install-toxiproxy.sh exited ${result.status}`);
  return path;
}

/** Ends `child` once: SIGTERM, then SIGKILL if it has not exited after the grace; also when this process exits. */
function stopper(child: ChildProcess): () => Promise<void> {
  const orphanGuard = () => child.kill('SIGKILL');
  process.once('exit', orphanGuard);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => process.off('exit', orphanGuard));
  let stopping: Promise<void> | undefined;
  return () => {
    stopping ??= (async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const grace = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
      await exited;
      clearTimeout(grace);
    })();
    return stopping;
  };
}

/** An API client once the server answers GET /version; throws if it exits first or stays silent past the guard. */
async function answering(child: ChildProcess, port: number, why: () => string): Promise<Client> {
  const alive = () => child.exitCode === null && child.signalCode === null;
  const client = new Client(`http://127.0.0.1:${port}`);
  const deadline = Date.now() + START_GUARD_MS;
  while (alive() && Date.now() < deadline) {
    try {
      const response = await client.request({ method: 'GET', path: '/version' });
      await response.body.text();
      if (response.statusCode === 200) return client;
    } catch {
      // Not listening yet: ask again shortly.
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await client.close();
  throw new Error(
    alive()
      ? `toxiproxy-server did not answer on 127.0.0.1:${port} within ${START_GUARD_MS / 1000} s`
      : `toxiproxy-server exited (${child.exitCode ?? child.signalCode}): ${why()}`,
  );
}

/**
 * Starts the server on a free loopback port and waits until its API answers. The child gets the
 * machine's own environment (its trust store and proxy settings, as every child of the suite:
 * cli/machine-environment.ts), logging warnings only; its stderr is drained, its tail kept for errors.
 */
export async function startToxiproxy(binary: string): Promise<ToxiproxyServer> {
  let failure: unknown;
  for (let attempt = 0; attempt < START_ATTEMPTS; attempt++) {
    const port = await freeLoopbackPort();
    const child = spawn(binary, ['-host', '127.0.0.1', '-port', String(port)], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...machineEnvironment(), LOG_LEVEL: 'warn' },
    });
    let tail = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      tail = (tail + chunk.toString()).slice(-2_000);
    });
    // A binary that cannot be started (removed from the cache) has no pid: say why, and do not retry.
    if (child.pid === undefined) {
      const error = await new Promise<Error>((resolve) => child.once('error', resolve));
      throw new Error(`toxiproxy-server could not be started: ${error.message}`);
    }
    const stop = stopper(child);
    try {
      const client = await answering(child, port, () => tail.trim().split('\n').at(-1) ?? '');
      return serverApi(client, `http://127.0.0.1:${port}`, child.pid!, stop);
    } catch (error) {
      await stop();
      failure = error;
    }
  }
  throw failure;
}

/** One call of Toxiproxy's API: its JSON answer (undefined when empty); a status of 300 or more throws. */
async function call(client: Client, method: 'POST' | 'DELETE', path: string, body?: unknown): Promise<unknown> {
  const response = await client.request({
    method,
    path,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.body.text();
  if (response.statusCode >= 300) throw new Error(`toxiproxy ${method} ${path}: ${response.statusCode} ${text.trim()}`);
  return text === '' ? undefined : JSON.parse(text);
}

/**
 * The server's API. A proxy listens on `127.0.0.1:0`: Toxiproxy binds it at once and answers with
 * the port it got, so no other process can take it between the choice and the bind.
 */
function serverApi(client: Client, apiUrl: string, pid: number, stop: () => Promise<void>): ToxiproxyServer {
  return {
    apiUrl,
    pid,
    async createProxy(name, upstream) {
      const body = { name, listen: '127.0.0.1:0', upstream: loopbackAddress(upstream), enabled: true };
      const created = (await call(client, 'POST', '/proxies', body)) as { listen: string };
      return { name, port: Number(loopbackAddress(created.listen).split(':')[1]) };
    },
    async addToxic(proxy, toxic) {
      const name = toxic.name ?? `${toxic.type}_${toxic.stream}`;
      await call(client, 'POST', `/proxies/${encodeURIComponent(proxy)}/toxics`, { ...toxic, name });
      return name;
    },
    async removeToxic(proxy, toxic) {
      await call(client, 'DELETE', `/proxies/${encodeURIComponent(proxy)}/toxics/${encodeURIComponent(toxic)}`);
    },
    async stop() {
      await client.close();
      await stop();
    },
  };
}
