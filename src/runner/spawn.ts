// THE spawn helper for connector processes (taps, targets, ETL scripts). Strict by
// construction: argv only (never a shell), an allowlisted environment, its own
// process group so a timeout, abort or kill reaches grandchildren too.
import { spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { connectorEnv, type EnvSource } from './env.ts';
import { LineRing, LineSplitter } from './lines.ts';

export { connectorEnv, CONNECTOR_BASE_ENV_KEYS, type EnvSource } from './env.ts';
export { resolveCommand, type ConnectorCommand, type RunSpec } from './resolve-command.ts';

export interface SpawnSpec {
  command: string;
  args?: readonly string[];
  cwd?: string;
  /** Basics (PATH, HOME, ...) are copied from here; see CONNECTOR_BASE_ENV_KEYS. */
  baseEnv: EnvSource;
  /** The job's environment_variables and stage variables. */
  envVars?: Readonly<Record<string, unknown>> | null;
  stdin?: 'pipe' | 'ignore';
  /** Each stderr line (long lines truncated at 64 KiB). */
  onStderrLine?: (line: string) => void;
  /** Kill the process group after this long. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Time between SIGTERM and SIGKILL. Default 5000. */
  killGraceMs?: number;
}

export interface ExitResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  /** Reason given to kill(), or 'timeout' / 'aborted'. */
  killReason: string | undefined;
  /** Set when the process could not be started (e.g. ENOENT). */
  error: Error | undefined;
}

export interface ConnectorProcess {
  pid: number | undefined;
  /** null when spec.stdin is 'ignore'. Write errors (EPIPE) are swallowed here; see `done`. */
  stdin: Writable | null;
  stdout: Readable;
  /** Resolves (never rejects) once the process exited and its output streams closed. */
  done: Promise<ExitResult>;
  /** SIGTERM to the whole group, SIGKILL after the grace period. Idempotent. */
  kill(reason: string): void;
  /** Last stderr lines, for error messages. */
  stderrTail(): string[];
}

const STDERR_TAIL_LINES = 20;

export function spawnConnector(spec: SpawnSpec): ConnectorProcess {
  const env = connectorEnv(spec.baseEnv, spec.envVars);
  const child = spawn(spec.command, spec.args ?? [], {
    cwd: spec.cwd,
    env,
    shell: false,
    detached: true,
    stdio: [spec.stdin ?? 'ignore', 'pipe', 'pipe'],
    windowsHide: true,
  });
  const pid = child.pid;
  const graceMs = spec.killGraceMs ?? 5000;
  const tail = new LineRing(STDERR_TAIL_LINES);
  const stderrLines = new LineSplitter((line) => {
    tail.add(line);
    spec.onStderrLine?.(line);
  }, { maxLineBytes: 64 * 1024, onLongLine: 'truncate' });
  const stdout = child.stdout!; // stdio[1] and [2] are always 'pipe'
  const stderr = child.stderr!;
  stderr.on('data', (chunk: Buffer) => stderrLines.push(chunk));
  stderr.on('end', () => stderrLines.end());
  child.stdin?.on('error', () => {}); // EPIPE when the process exits early: reported by its exit code.

  let killReason: string | undefined;
  let timedOut = false;
  let aborted = false;
  let killTimer: NodeJS.Timeout | undefined;
  let exited = false;

  const signalGroup = (signal: NodeJS.Signals): void => {
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // ESRCH: the group is already gone.
    }
  };
  const kill = (reason: string): void => {
    if (killReason !== undefined || pid === undefined) return;
    killReason = reason;
    signalGroup('SIGTERM');
    killTimer = setTimeout(() => signalGroup('SIGKILL'), graceMs);
    killTimer.unref();
  };

  const timeout = spec.timeoutMs === undefined ? undefined : setTimeout(() => {
    timedOut = true;
    kill('timeout');
  }, spec.timeoutMs);
  const onAbort = (): void => {
    aborted = true;
    kill('aborted');
  };
  if (spec.signal?.aborted) onAbort();
  else spec.signal?.addEventListener('abort', onAbort, { once: true });

  // The process is done when its leader exited; anything it left running in its
  // group (orphaned grandchildren) is killed so no work outlives the stage and
  // the output pipes close.
  child.on('exit', () => {
    exited = true;
    if (pid !== undefined && groupAlive(pid)) {
      signalGroup('SIGTERM');
      const reaper = setTimeout(() => signalGroup('SIGKILL'), Math.min(graceMs, 1000));
      reaper.unref();
    }
  });

  const done = new Promise<ExitResult>((resolve) => {
    const finish = (code: number | null, signal: NodeJS.Signals | null, error?: Error): void => {
      clearTimeout(timeout);
      if (killTimer !== undefined && !groupAlive(pid)) clearTimeout(killTimer);
      spec.signal?.removeEventListener('abort', onAbort);
      resolve({ code, signal, timedOut, aborted, killReason, error });
    };
    child.once('error', (error) => {
      if (!exited && pid === undefined) finish(null, null, error);
    });
    child.once('close', (code, signal) => finish(code, signal));
  });

  return { pid, stdin: child.stdin, stdout, done, kill, stderrTail: () => tail.toArray() };
}

function groupAlive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}
