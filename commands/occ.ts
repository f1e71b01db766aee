/**
 * `occ`: the one command of the suite. Each subcommand is one thin file of this folder (./run.ts,
 * ./load.ts, …), the composition root of what it runs, imported only when named and given the rest
 * of the command line: its own parser owns its flags and its `--help`, so a flag is added in one place.
 * commander does the dispatch: subcommands with descriptions, generated `occ --help`, version,
 * and "did you mean" on a misspelt command (node:util parseArgs has no subcommands).
 *
 * Exit codes are the subcommand's; a bad command line here is one line on stderr and exit 2.
 */
import '../cli/compile-cache.ts'; // first: the subcommands, imported below when named, load from the compile cache
import { Command, CommanderError } from 'commander';
import packageJson from '../package.json' with { type: 'json' };

type Handler = (args: readonly string[]) => Promise<number | undefined>;

interface Subcommand {
  readonly name: string;
  readonly description: string;
  readonly handler: Handler;
}

const subcommands: readonly Subcommand[] = [
  {
    name: 'run',
    description:
      'run the conformance suites and properties against the target ' +
      '(the embedded reference when nothing is configured) and write the reports',
    handler: async (args) => (await import('./run.ts')).run(args),
  },
  {
    name: 'dry-run',
    description:
      'list every check and the requests it would send to the configured target; send nothing (occ run --dry-run)',
    handler: async (args) => (await import('./dry-run.ts')).dryRun(args),
  },
  {
    name: 'load',
    description:
      'occ load rate-limit|webhook-retry: run one k6 probe (k6 found on PATH, in the cache, or built once with Go); ' +
      'rate-limit --runners N, occ load merge <dir>, occ load k6-operator-manifest: several addresses',
    // Exits with the verdict: k6's keep-alive sockets must not hold it back.
    handler: async (args) => (await import('./load.ts')).load(args),
  },
  {
    name: 'receiver',
    description: 'serve the HTTPS webhook receiver alone (configured by RECEIVER_* and WEBHOOK_PUBLIC_URL)',
    handler: async (args) => (await import('./receiver.ts')).receiver(args),
  },
  {
    name: 'reference',
    description: 'serve the embedded reference server standalone and print its URLs and tokens',
    handler: async (args) => (await import('./reference.ts')).reference(args),
  },
  {
    name: 'control-check',
    description: "verify the target's test-control endpoint (CONTROL_URL) against control-openapi.json before a run",
    handler: async (args) => (await import('./control-check.ts')).controlCheck(args),
  },
  {
    name: 'verify',
    description: 'check an evidence.zip (occ run --evidence) against its manifest and say what differs',
    handler: async (args) => (await import('./verify.ts')).verify(args),
  },
  {
    name: 'self-proof',
    description: "switch on each fault of the reference's catalogue and require the suite to catch it (kill rate)",
    handler: async (args) => (await import('./self-proof.ts')).selfProof(args),
  },
];

function program(): { command: Command; chosen: () => Promise<number | undefined> } {
  let chosen: () => Promise<number | undefined> = async () =>
    usageError(`name a command: ${subcommands.map((s) => s.name).join(', ')} (occ --help lists them)`);
  const command = new Command('occ')
    .description(
      'Conformance and load suite for the Outbound Calling REST API v1.\n' +
        'Run `occ <command> --help` for the options of a command.',
    )
    .version(packageJson.version, '-V, --version')
    .enablePositionalOptions()
    .helpCommand(false)
    .showSuggestionAfterError()
    .exitOverride()
    .configureOutput({
      // commander's own errors: one line, naming where the help is.
      outputError: (text, write) => write(`occ: ${text.replace(/^error: /, '').split('\n')[0]}; run occ --help\n`),
    });
  for (const sub of subcommands) {
    command
      .command(sub.name)
      .description(sub.description)
      // The subcommand's own parser owns its flags and its --help.
      .helpOption(false)
      .allowUnknownOption()
      .allowExcessArguments()
      .passThroughOptions()
      .argument('[options...]')
      .action((args: string[]) => {
        chosen = () => sub.handler(args);
      });
  }
  return { command, chosen: () => chosen() };
}

function usageError(message: string): number {
  process.stderr.write(`occ: ${message}\n`);
  return 2;
}

/**
 * A reader that goes away (`occ self-proof | head -1`) closes the pipe: the command goes on to its
 * end (a run still tears down what it created) with that output dropped, and keeps its exit code.
 */
function dropOutputOnClosedPipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
  });
}

export async function main(argv: readonly string[]): Promise<number | undefined> {
  dropOutputOnClosedPipe(process.stdout);
  dropOutputOnClosedPipe(process.stderr);
  const { command, chosen } = program();
  try {
    command.parse([...argv], { from: 'user' });
    return await chosen();
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    throw error;
  }
}

if (import.meta.main) {
  const code = await main(process.argv.slice(2));
  if (code !== undefined) process.exitCode = code;
}
