/**
 * Commands run as a user runs them, in their own process: `occ` through its installed bin script,
 * or a shell line from a report, with a clean environment (no developer .env or shell variable
 * leaks in) in CI mode. Asynchronous, so a target served by the test process itself can answer
 * while the child runs.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

export interface ProcessRun { code: number | null; stdout: string; stderr: string }

/**
 * PATH and HOME only, CI mode, plus `extra`; and Node's compile cache when npm test set one
 * (vitest.config.ts): a V8 code cache that no part of the suite reads, it only saves start-up CPU.
 */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const compileCache = process.env.NODE_COMPILE_CACHE;
  return { PATH: process.env.PATH, HOME: process.env.HOME, CI: 'true', ...(compileCache === undefined ? {} : { NODE_COMPILE_CACHE: compileCache }), ...extra };
}

export function runProcess(command: string, args: readonly string[], extra: Record<string, string>, options: { cwd?: string; timeoutMs?: number } = {}): Promise<ProcessRun> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env: cleanEnv(extra), ...(options.cwd === undefined ? {} : { cwd: options.cwd }) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }); });
  });
}

export function runOcc(args: readonly string[], extra: Record<string, string>, cwd: string, timeoutMs = 120_000): Promise<ProcessRun> {
  return runProcess(process.execPath, [join(import.meta.dirname, '../../bin/occ.js'), ...args], extra, { cwd, timeoutMs });
}
