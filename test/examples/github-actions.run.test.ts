/**
 * examples/github-actions.yml as written: linted by actionlint (tools/install-actionlint.sh, built
 * before npm test like k6), then its job run step by step, twice, as two nightly runs of GitHub
 * Actions would run it, against the embedded target (the `vars` and `secrets` it reads are empty
 * here, so API_BASE_URL is empty). The second night's report must chart the first: the history
 * step really restores what the previous night saved.
 *
 * Each `run:` step runs in bash as written, in a fresh checkout of the tracked files. The `uses:`
 * steps are played by small stand-ins (checkout, setup-node, cache restore/save with GitHub's key
 * and restore-keys rules, artifact upload and download, JUnit report); a step with any other action fails the
 * test, so the stand-ins cover the whole file. The one `run:` step played by a stand-in is `npm ci`:
 * a hard-linked copy of the clone's own node_modules, which `.ci/run`'s `npm ci` installed from the
 * same package-lock.json in a fresh clone (so the step's real behaviour is proven there), at a
 * fraction of the cost of two more installs. Every other `run:` step runs as written.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { parse } from 'yaml';
import { cleanEnv } from '../commands/occ-process.ts';
import { parseXml } from '../harness/report/parse-back.ts';

const repo = resolve(import.meta.dirname, '../..');
const workflowFile = join(repo, 'examples/github-actions.yml');
const lockFile = join(repo, 'package-lock.json');

interface Step {
  readonly name?: string;
  readonly uses?: string;
  readonly run?: string;
  readonly if?: string;
  readonly with?: Readonly<Record<string, string | number | boolean>>;
  readonly 'continue-on-error'?: boolean;
}
interface Job {
  readonly if?: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly steps: readonly Step[];
}

interface Context {
  readonly event: string;
  readonly runId: string;
  succeeded: boolean;
}

/** The values of the expressions this file uses; `vars` and `secrets` are unset here. */
function operand(text: string, context: Context): string | boolean {
  const t = text.trim();
  if (/^'.*'$/.test(t)) return t.slice(1, -1);
  if (t === 'always()') return true;
  if (t === 'success()') return context.succeeded;
  if (t === 'github.event_name') return context.event;
  if (t === 'github.run_id') return context.runId;
  if (/^(vars|secrets)\.\w+$/.test(t)) return '';
  if (/^github\.event\.[\w.]+$/.test(t)) return '';
  throw new Error(
    `the workflow uses the expression "${t}", which this test cannot evaluate: teach operand() its value`,
  );
}

/** GitHub's expression syntax, as far as this file uses it: ||, &&, ==, != over operands. */
function evaluate(expression: string, context: Context): string | boolean {
  const text = expression.trim().replace(/^\$\{\{(.*)\}\}$/s, '$1');
  if (text.includes('||')) return text.split('||').some((part) => evaluate(part, context) === true);
  if (text.includes('&&')) return text.split('&&').every((part) => evaluate(part, context) === true);
  const comparison = /^(.*?)(==|!=)(.*)$/.exec(text);
  if (comparison !== null) {
    const equal = operand(comparison[1]!, context) === operand(comparison[3]!, context);
    return comparison[2] === '==' ? equal : !equal;
  }
  return operand(text, context);
}

function interpolate(value: string, context: Context): string {
  return value.replace(/\$\{\{(.*?)\}\}/g, (_, expression: string) => String(evaluate(expression, context)));
}

/** Whether a step runs: its `if` (a status function in it, or the implied success()). */
function runs(step: Step, context: Context): boolean {
  if (step.if === undefined) return context.succeeded;
  const explicitStatus = /\b(always|success|failure|cancelled)\(\)/.test(step.if);
  return evaluate(step.if, context) === true && (explicitStatus || context.succeeded);
}

/** actions/cache's lookup: the exact key, else the newest entry whose key starts with a restore key. */
function cacheLookup(store: string, key: string, restoreKeys: readonly string[]): string | undefined {
  if (existsSync(join(store, key))) return join(store, key);
  const entries = readdirSync(store).map((name) => ({
    name,
    order: Number(readFileSync(join(store, name, '.order'), 'utf8')),
  }));
  for (const prefix of restoreKeys) {
    const newest = entries.filter((e) => e.name.startsWith(prefix)).sort((a, b) => b.order - a.order)[0];
    if (newest !== undefined) return join(store, newest.name);
  }
  return undefined;
}

interface NightlyRun {
  readonly workspace: string;
  readonly log: string[];
  readonly failedSteps: string[];
}

/** One run of the workflow's job, as GitHub would run it on a `schedule` event. */
function runJob(job: Job, runId: string, scratch: string): NightlyRun {
  const [store, artifacts] = [join(scratch, 'cache'), join(scratch, 'artifacts')];
  const context: Context = { event: 'schedule', runId, succeeded: true };
  const workspace = join(scratch, `run-${runId}`);
  mkdirSync(workspace);
  const log: string[] = [];
  const failedSteps: string[] = [];
  const summary = join(scratch, `step-summary-${runId}.md`);
  const jobEnv = Object.fromEntries(
    Object.entries(job.env ?? {}).map(([name, value]) => [name, interpolate(String(value), context)]),
  );
  const env = cleanEnv({
    ...jobEnv,
    PATH: [join(workspace, 'node_modules/.bin'), process.env.PATH].join(delimiter),
    GITHUB_EVENT_NAME: context.event,
    GITHUB_RUN_ID: runId,
    GITHUB_STEP_SUMMARY: summary,
    npm_config_offline: 'true',
  });
  // The `npm ci` stand-in: the checkout's lockfile is the clone's, so its install is the clone's.
  const npmCi = (): boolean => {
    if (readFileSync(join(workspace, 'package-lock.json'), 'utf8') !== readFileSync(lockFile, 'utf8')) return false;
    // Caches are written in place, and by the other vitest processes of npm test while this copy is
    // made (a file gone mid-copy fails cp): the copy gets none, so the clone's files are never
    // written through a link and the copy never races them.
    const caches = ['.vite', '.vite-temp', '.vitest-cache', '.cache'];
    const entries = readdirSync(join(repo, 'node_modules')).filter((entry) => !caches.includes(entry));
    mkdirSync(join(workspace, 'node_modules'));
    const link = spawnSync(
      'cp',
      ['-al', ...entries.map((e) => join(repo, 'node_modules', e)), join(workspace, 'node_modules')],
      {
        encoding: 'utf8',
      },
    );
    if (link.status !== 0) log.push(`npm ci: cp -al failed: ${link.stderr.trim().split('\n').slice(0, 3).join('; ')}`);
    return link.status === 0;
  };
  for (const step of job.steps) {
    const label = step.name ?? step.uses ?? step.run ?? '?';
    if (!runs(step, context)) {
      log.push(`skipped: ${label}`);
      continue;
    }
    const input = (name: string): string => interpolate(String(step.with?.[name] ?? ''), context);
    let ok = true;
    if (step.run?.trim() === 'npm ci') {
      ok = npmCi();
      const failed = 'not installed: package-lock.json differs from the clone, or the copy failed';
      log.push(`npm ci: ${ok ? "the clone's node_modules, hard-linked" : failed}`);
    } else if (step.run !== undefined) {
      const result = spawnSync('bash', ['-e', '-c', step.run], {
        cwd: workspace,
        env,
        encoding: 'utf8',
        timeout: 240_000,
      });
      ok = result.status === 0;
      const output = ok ? '' : `\n${result.stdout.slice(-1500)}\n${result.stderr.slice(-1500)}`;
      log.push(`run (${result.status}): ${step.run.trim()}${output}`);
    } else if (step.uses?.startsWith('actions/checkout@') === true) {
      const tracked = spawnSync('git', ['ls-files', '-z'], { cwd: repo, encoding: 'utf8' })
        .stdout.split('\0')
        .filter((f) => f !== '');
      for (const file of tracked) {
        if (!existsSync(join(repo, file))) continue;
        mkdirSync(dirname(join(workspace, file)), { recursive: true });
        cpSync(join(repo, file), join(workspace, file));
      }
      log.push(`checkout: ${tracked.length} files`);
    } else if (step.uses?.startsWith('actions/setup-node@') === true) {
      // The clone's own Node 24 (the `node` devDependency) stands in for the runner's.
      ok = Number(input('node-version')) >= 24;
      log.push(`setup-node ${input('node-version')}`);
    } else if (step.uses?.startsWith('actions/cache/restore@') === true) {
      const restoreKeys = input('restore-keys')
        .split('\n')
        .map((k) => k.trim())
        .filter((k) => k !== '');
      const hit = cacheLookup(store, input('key'), restoreKeys);
      if (hit !== undefined) cpSync(join(hit, 'content'), join(workspace, input('path')), { recursive: true });
      log.push(`cache restore: ${hit === undefined ? 'miss' : `hit ${hit}`}`);
    } else if (step.uses?.startsWith('actions/cache/save@') === true) {
      const entry = join(store, input('key'));
      // GitHub refuses to overwrite an entry: a key saved twice is an error in the workflow.
      ok = !existsSync(entry) && existsSync(join(workspace, input('path')));
      if (ok) {
        cpSync(join(workspace, input('path')), join(entry, 'content'), { recursive: true });
        writeFileSync(join(entry, '.order'), String(readdirSync(store).length));
      }
      const why = existsSync(entry) ? ' (already exists)' : ` (no ${input('path')} to save)`;
      log.push(`cache save: ${input('key')}${ok ? '' : why}`);
    } else if (step.uses?.startsWith('actions/upload-artifact@') === true) {
      ok = existsSync(join(workspace, input('path')));
      if (ok) cpSync(join(workspace, input('path')), join(artifacts, runId, input('name')), { recursive: true });
      log.push(`upload-artifact ${input('name')}: ${input('path')}`);
    } else if (step.uses?.startsWith('actions/download-artifact@') === true) {
      // Without run-id it reads only this run's own artifacts (the action's documented default).
      const from = join(artifacts, input('run-id') || runId, input('name'));
      ok = existsSync(from);
      if (ok) cpSync(from, join(workspace, input('path')), { recursive: true });
      log.push(`download-artifact ${input('name')}: ${ok ? 'found' : 'not found'}`);
    } else if (step.uses?.startsWith('mikepenz/action-junit-report@') === true) {
      parseXml(readFileSync(join(workspace, input('report_paths')), 'utf8'));
      log.push(`junit report: ${input('report_paths')}`);
    } else {
      throw new Error(`step "${label}" uses ${step.uses}, which this test has no stand-in for: add one`);
    }
    if (!ok) {
      failedSteps.push(label);
      if (step['continue-on-error'] !== true) context.succeeded = false;
    }
  }
  return { workspace, log, failedSteps };
}

function actionlint(): string {
  const install = spawnSync('bash', [join(repo, 'tools/install-actionlint.sh')], {
    encoding: 'utf8',
    env: cleanEnv({}),
  });
  expect(
    install.status,
    `${install.stderr}(.ci/run builds it before npm test: run bash tools/install-actionlint.sh)`,
  ).toBe(0);
  return install.stdout.trim().split('\n').at(-1)!;
}

describe('examples/github-actions.yml', () => {
  it('is clean under actionlint', () => {
    const examples = readdirSync(join(repo, 'examples'))
      .filter((f) => /\.ya?ml$/.test(f))
      .map((f) => join('examples', f));
    const lint = spawnSync(actionlint(), ['-no-color', ...examples], { cwd: repo, encoding: 'utf8' });
    expect(lint.stdout + lint.stderr).toBe('');
    expect(lint.status).toBe(0);
  });

  it('run twice as nightly jobs, the second report charts the first: the history is restored', {
    timeout: 600_000,
  }, () => {
    const workflow = parse(readFileSync(workflowFile, 'utf8')) as { jobs: Record<string, Job> };
    const job = workflow.jobs.conformance!;
    expect(evaluate(job.if ?? 'true', { event: 'schedule', runId: '0', succeeded: true })).toBe(true);
    // The runners' workspaces, the cache store and the artifacts: one folder, removed at the end.
    const scratch = mkdtempSync(join(tmpdir(), 'occ-gha-'));
    onTestFinished(() => rmSync(scratch, { recursive: true, force: true }));
    const [store, artifacts] = [join(scratch, 'cache'), join(scratch, 'artifacts')];
    mkdirSync(store);
    mkdirSync(artifacts);

    const first = runJob(job, '1001', scratch);
    expect(first.failedSteps, first.log.join('\n')).toEqual([]);
    const second = runJob(job, '1002', scratch);
    expect(second.failedSteps, second.log.join('\n')).toEqual([]);
    expect(second.log.join('\n')).toMatch(/cache restore: hit .*conformance-history-1001/);
    expect(second.log).toContain("npm ci: the clone's node_modules, hard-linked");

    type Report = {
      startedAt: string;
      history: Array<{ startedAt: string }>;
      counts: { requirements: { failed: number } };
    };
    const read = (run: NightlyRun) =>
      JSON.parse(readFileSync(join(run.workspace, 'reports/latest/report.json'), 'utf8')) as Report;
    const [night1, night2] = [read(first), read(second)];
    expect(night2.counts.requirements.failed).toBe(0);
    expect(night2.history.map((h) => h.startedAt)).toEqual([night1.startedAt, night2.startedAt]);
    const html = readFileSync(join(second.workspace, 'reports/latest/report.html'), 'utf8');
    expect(html).toMatch(/Trend over the last 2 runs/);
    // What a person downloads: the second night's report artifact, and the history saved for the third.
    expect(existsSync(join(artifacts, '1002', 'conformance-report', 'report.html'))).toBe(true);
    expect(readdirSync(join(store, 'conformance-history-1002', 'content')).filter((d) => d !== 'latest')).toHaveLength(
      2,
    );
  });
});
