/**
 * The command line of `occ run`: its flags, their usage text and their validation, each flag
 * read once into Options. Configuration (the environment and .env) is not read here: that is
 * harness/config/'s, and `occ run` merges the two (./run-start.ts).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { positiveSeconds } from '../harness/config/config.ts';
import { parseSeed } from '../harness/scheduling/seed.ts';
import { isRequirementId } from '../requirements/catalogue.ts';

/**
 * The flags of `occ run`, one entry each: the parser options and the usage text both come from
 * here, so a new flag is one entry plus its handling in parseOptions.
 */
const flags = {
  'dry-run': {
    type: 'boolean',
    default: false,
    usage: '--dry-run            list the checks and the requests they would send; send nothing',
  },
  only: {
    type: 'string',
    usage: '--only <ids>         run only the checks of these requirement ids (comma-separated)',
  },
  'reports-dir': {
    type: 'string',
    default: 'reports',
    usage: '--reports-dir <dir>  where reports go (default: reports)',
  },
  seed: {
    type: 'string',
    usage: '--seed <n>           seed of the property-based checks (default: PROPERTY_SEED or random)',
  },
  'no-properties': { type: 'boolean', default: false, usage: '--no-properties      run the conformance suites only' },
  'time-budget': {
    type: 'string',
    usage:
      '--time-budget <s>    seconds of requests a remote run may take at REQUESTS_PER_MINUTE (default: RUN_BUDGET_S, ' +
      '113: 150 requests at 80 per minute); rate × time sizes what it sends',
  },
  'all-probes': {
    type: 'boolean',
    default: false,
    usage: '--all-probes         send every probe and matrix cell in this run, whatever the budget',
  },
  'with-load': {
    type: 'boolean',
    default: false,
    usage:
      '--with-load          then run the k6 probes (webhook-retry, then rate-limit) against the same target; ' +
      'their verdicts join the report (with --dry-run: their requests are counted)',
  },
  waivers: { type: 'string', usage: '--waivers <file>     known failures to report as waived (default: WAIVERS_FILE)' },
  strict: {
    type: 'boolean',
    default: false,
    usage: '--strict             ignore every waiver (vendor acceptance); the report says so',
  },
  evidence: {
    type: 'boolean',
    default: false,
    usage: '--evidence           also write reports/<run>/evidence.zip: the reports and a manifest of their SHA-256',
  },
  'update-waivers': {
    type: 'boolean',
    default: false,
    usage: "--update-waivers     add this run's failures to the waiver file (reason, expiry left to fill)",
  },
  help: { type: 'boolean', short: 'h', default: false, usage: '-h, --help           this text' },
} as const satisfies Record<
  string,
  { type: 'boolean' | 'string'; short?: string; default?: boolean | string; usage: string }
>;

export const usage = `Usage: occ run [options]   (npm run conformance -- [options])

${Object.values(flags)
  .map((flag) => `  ${flag.usage}`)
  .join('\n')}

Configuration comes from the environment and .env (see .env.example); with nothing set the
suite runs against the embedded reference server.`;

/** A bad command line: one line on stderr, exit 2. */
export class UsageError extends Error {}

export interface Options {
  readonly dryRun: boolean;
  readonly only: readonly string[];
  readonly reportsDir: string;
  /** --seed (PROPERTY_SEED is the settings'). */
  readonly seed: number | undefined;
  readonly properties: boolean;
  readonly withLoad: boolean;
  /** The waiver file named by --waivers (WAIVERS_FILE is read after .env is loaded). */
  readonly waivers: string | undefined;
  readonly strict: boolean;
  readonly updateWaivers: boolean;
  readonly evidence: boolean;
  /** --time-budget: seconds, overriding RUN_BUDGET_S. */
  readonly timeBudgetS: number | undefined;
  readonly allProbes: boolean;
}

export function parseOptions(argv: readonly string[]): Options | 'help' {
  const config = {
    args: [...argv],
    strict: true,
    allowPositionals: false,
    // parseArgs rejects the extra `usage` key, so strip it.
    options: Object.fromEntries(Object.entries(flags).map(([name, { usage: _, ...option }]) => [name, option])) as {
      [K in keyof typeof flags]: Omit<(typeof flags)[K], 'usage'>;
    },
  } satisfies ParseArgsConfig;
  let parsed: ReturnType<typeof parseArgs<typeof config>>;
  try {
    parsed = parseArgs(config);
  } catch (error) {
    throw new UsageError(
      `${(error as Error).message.split('\n')[0]!.replace(/\.$/, '')}; run occ run --help for the options`,
    );
  }
  const { values } = parsed;
  if (values.help) return 'help';
  const only = (values.only ?? '')
    .split(',')
    .map((id) => id.trim())
    .filter((id) => id !== '');
  const unknown = only.filter((id) => !isRequirementId(id));
  if (unknown.length > 0)
    throw new UsageError(
      `--only: unknown requirement id ${unknown.join(', ')}; the ids are in requirements/catalogue.ts`,
    );
  let seed: number | undefined;
  if (values.seed !== undefined && values.seed !== '') {
    seed = parseSeed(values.seed);
    if (seed === undefined) throw new UsageError(`--seed must be a whole number below 2^31 (got "${values.seed}")`);
  }
  if (values.waivers !== undefined && values.waivers.trim() === '') throw new UsageError('--waivers needs a file path');
  return {
    dryRun: values['dry-run'],
    only,
    reportsDir: values['reports-dir'],
    seed,
    properties: !values['no-properties'],
    withLoad: values['with-load'],
    waivers: values.waivers,
    strict: values.strict,
    updateWaivers: values['update-waivers'],
    evidence: values.evidence,
    timeBudgetS: values['time-budget'] === undefined ? undefined : timeBudget(values['time-budget']),
    allProbes: values['all-probes'],
  };
}

/** --time-budget by RUN_BUDGET_S's rule, its error naming the flag. */
function timeBudget(text: string): number {
  try {
    return positiveSeconds('--time-budget', text.trim());
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
