/**
 * A vitest reporter that turns finished checks into CheckResults for the report model, and
 * shows progress: one updating line on a terminal (checks done of total, requests used of the
 * budget, time left), plain lines in CI.
 *
 * Failures and observations arrive already redacted by the worker (whose client knows the
 * secrets the run met); the configured secrets are scrubbed here once more. Check names are
 * never touched: they key the trend and regression tracking.
 */
import { relative } from 'node:path';
import type { Reporter, TestCase, TestModule } from 'vitest/node';
import type { Redactor } from '../http/redact.ts';
import type { CheckResult, CheckStatus } from './results.ts';
import { clip, readable } from './readable.ts';
import { partOf } from '../run/projects.ts';

/** Longest failure and observation texts a report keeps (a target can make them huge); the cut is said in the text. */
const FAILURE_CHARS = 20_000;
const OBSERVATION_CHARS = 4_000;

export interface ProgressSink {
  readonly interactive: boolean;
  write(text: string): void;
}

export class CheckCollector implements Reporter {
  readonly results: CheckResult[] = [];
  readonly unhandledErrors: string[] = [];
  private total = 0;
  private interrupted = false;
  /** Every check collected to run, so an interrupted run can list the ones it never reached. */
  private readonly collected = new Map<string, TestCase>();
  private plannedRequests = 0;
  private requestsUsed = 0;
  private readonly started = Date.now();
  private readonly root: string;
  private readonly redact: Redactor;
  private readonly progress: ProgressSink | undefined;
  private readonly requestsPerMinute: number | undefined;

  private readonly onRequestsReported: ((requests: number) => void) | undefined;

  constructor(options: {
    root: string;
    redact: Redactor;
    progress?: ProgressSink;
    requestsPerMinute?: number | undefined;
    /** Called as a check that sent requests is reported (how many): none of them is still to come. */
    onRequestsReported?: (requests: number) => void;
  }) {
    this.onRequestsReported = options.onRequestsReported;
    this.root = options.root;
    this.redact = options.redact;
    this.progress = options.progress;
    this.requestsPerMinute = options.requestsPerMinute;
  }

  onTestModuleCollected(module: TestModule): void {
    for (const test of module.children.allTests()) {
      if (test.options.mode !== 'run') continue;
      this.collected.set(this.idOf(test), test);
      this.total += 1;
      this.plannedRequests += test.meta().plannedRequests ?? 0;
    }
  }

  onTestCaseResult(test: TestCase): void {
    // Filtered out (--only) or statically skipped: not part of this run, not "not verifiable".
    if (test.options.mode !== 'run') return;
    const result = this.toResult(test);
    // An aborted run reports the check in flight a second time: keep the last word on it.
    const earlier = this.results.findIndex((r) => r.id === result.id);
    if (earlier >= 0) {
      this.requestsUsed -= this.results[earlier]!.requests;
      this.results.splice(earlier, 1);
    }
    this.results.push(result);
    this.requestsUsed += result.requests;
    if (result.requests > 0) this.onRequestsReported?.(result.requests);
    this.report(result);
  }

  /** The run is being stopped (SIGINT/SIGTERM): checks cancelled from now on were not run. */
  interrupt(): void {
    this.interrupted = true;
  }

  onTestRunEnd(
    _modules: ReadonlyArray<TestModule>,
    errors: ReadonlyArray<{ message: string; name?: string }>,
    reason?: string,
  ): void {
    if (reason === 'interrupted') this.interrupted = true;
    if (this.interrupted) {
      const reported = new Set(this.results.map((r) => r.id));
      for (const [id, test] of this.collected) {
        if (reported.has(id)) continue;
        const result = this.notRun(test);
        this.results.push(result);
        this.report(result);
      }
    }
    for (const error of errors) this.unhandledErrors.push(this.redact(`${error.name ?? 'Error'}: ${error.message}`));
    if (this.progress?.interactive) this.progress.write('\n');
  }

  private idOf(test: TestCase): string {
    return `${this.partOf(test)}:${relative(this.root, test.module.moduleId)}:${test.fullName}`;
  }

  private partOf(test: TestCase): string {
    return partOf(test.project.name, this.root, test.module.moduleId);
  }

  private notRun(test: TestCase): CheckResult {
    return {
      id: this.idOf(test),
      project: this.partOf(test),
      file: relative(this.root, test.module.moduleId),
      name: test.name,
      status: 'not_run',
      durationMs: 0,
      requirements: [...test.tags],
      observations: [],
      exchanges: [],
      requests: 0,
      plannedRequests: test.meta().plannedRequests ?? 0,
      rateLimited: 0,
    };
  }

  private toResult(test: TestCase): CheckResult {
    const meta = test.meta();
    const result = test.result();
    const diagnostic = test.diagnostic();
    const failure =
      result.state === 'failed'
        ? clip(
            this.redact(
              result.errors
                .map((e) => e.message)
                .join('\n')
                .replace(/\u001b\[[0-9;]*m/g, ''),
            ),
            FAILURE_CHARS,
          )
        : undefined;
    const note = (result as { note?: string }).note;
    // After the signal, a check that comes back skipped without a not-verifiable reason of its own
    // was cancelled before it started or aborted in flight ("The test run was aborted"), and one still
    // pending was in a file the run never reached: not run.
    const unfinished = result.state === 'skipped' || result.state === 'pending';
    const cancelled = unfinished && this.interrupted && meta.notVerifiable === undefined && note !== 'dry run';
    const status: CheckStatus =
      result.state === 'passed' ? 'passed' : result.state === 'failed' ? 'failed' : cancelled ? 'not_run' : 'skipped';
    const skipReason = status === 'skipped' ? this.redact(meta.notVerifiable ?? note ?? 'skipped') : undefined;
    return {
      id: this.idOf(test),
      project: this.partOf(test),
      file: relative(this.root, test.module.moduleId),
      name: test.name,
      status,
      durationMs: Math.round(diagnostic?.duration ?? 0),
      requirements: [...test.tags],
      failure,
      skipReason,
      ...(status === 'skipped' && meta.missingCapabilities !== undefined && meta.missingCapabilities.length > 0
        ? { missingCapabilities: [...meta.missingCapabilities] }
        : {}),
      observations: (meta.observations ?? []).map((o) => ({
        requirement: o.requirement,
        text: clip(this.redact(o.text), OBSERVATION_CHARS),
      })),
      exchanges: result.state === 'failed' ? (meta.exchanges ?? []) : [],
      ...(result.state === 'failed' && meta.exchangesOmitted !== undefined
        ? { exchangesOmitted: meta.exchangesOmitted }
        : {}),
      requests: meta.requestCount ?? 0,
      plannedRequests: meta.plannedRequests ?? 0,
      ...(meta.plannedRequestsAll === undefined ? {} : { plannedRequestsAll: meta.plannedRequestsAll }),
      ...(meta.probes === undefined
        ? {}
        : {
            probes: {
              requirement: meta.probes.requirement,
              sent: meta.probes.sent,
              of: meta.probes.of,
              left: meta.probes.left.map((name) => clip(this.redact(name), OBSERVATION_CHARS)),
            },
          }),
      rateLimited: meta.rateLimited ?? 0,
      ...((meta.transportFailures ?? 0) + (meta.retries ?? 0) === 0
        ? {}
        : { transport: { failures: meta.transportFailures ?? 0, retries: meta.retries ?? 0 } }),
      ...(result.state === 'failed' && meta.failedRequirements !== undefined
        ? { failedRequirements: meta.failedRequirements }
        : {}),
    };
  }

  private report(result: CheckResult): void {
    if (this.progress === undefined) return;
    const done = this.results.length;
    if (this.progress.interactive) {
      const remaining = Math.max(0, this.plannedRequests - this.requestsUsed);
      const left =
        this.requestsPerMinute === undefined
          ? ''
          : ` · about ${Math.ceil((remaining * 60) / this.requestsPerMinute)} s left`;
      const elapsed = Math.round((Date.now() - this.started) / 1000);
      this.progress.write(
        `\r\u001b[2K${done}/${this.total} checks · ` +
          `${this.requestsUsed}/${this.plannedRequests} requests of the budget · ${elapsed} s${left}`,
      );
      if (result.status === 'failed') this.progress.write(`\r\u001b[2K✗ ${readable(result.name)}\n`);
    } else {
      const mark = { passed: 'PASS', failed: 'FAIL', skipped: 'SKIP', not_run: 'NOT RUN', waived: 'WAIVED' }[
        result.status
      ];
      const why =
        result.status === 'skipped' ? ` (${result.skipReason})` : result.status === 'not_run' ? ' (interrupted)' : '';
      const line = `${mark} [${done}/${this.total}] ${result.name} [${result.requirements.join(', ')}]${why}`;
      this.progress.write(`${readable(line)}\n`);
    }
  }
}
