/**
 * Commands run as a user runs them, in their own process: `occ` through its installed bin script,
 * or a shell line from a report, in CI mode, with the machine's environment but none of the suite's
 * own configuration (no developer .env or shell setting of a documented variable leaks in).
 * Asynchronous, so a target served by the test process itself can answer while the child runs.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { machineEnvironment } from '../../cli/machine-environment.ts';

export interface ProcessRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The machine's environment without the suite's configuration (cli/machine-environment.ts),
 * in CI mode, plus `extra`.
 */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { ...machineEnvironment(), CI: 'true', ...extra };
}

export interface ProcessOptions {
  readonly cwd?: string;
  /** A hang guard: the child is killed (SIGKILL) after this long. */
  readonly timeoutMs?: number;
  /** Called on every chunk of output with all of it so far, e.g. to signal the child at a point of its run. */
  readonly onOutput?: (output: string, child: ChildProcess) => void;
}

export function runProcess(
  command: string,
  args: readonly string[],
  extra: Record<string, string>,
  options: ProcessOptions = {},
): Promise<ProcessRun> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      env: cleanEnv(extra),
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      options.onOutput?.(stdout + stderr, child);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      options.onOutput?.(stdout + stderr, child);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export function runOcc(
  args: readonly string[],
  extra: Record<string, string>,
  cwd: string,
  timeoutMs = 120_000,
  onOutput?: ProcessOptions['onOutput'],
): Promise<ProcessRun> {
  return runProcess(process.execPath, [join(import.meta.dirname, '../../bin/occ.js'), ...args], extra, {
    cwd,
    timeoutMs,
    ...(onOutput === undefined ? {} : { onOutput }),
  });
}
