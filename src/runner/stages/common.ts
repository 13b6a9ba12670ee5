// Options and helpers shared by the stages that run a connector process.
import type { EnvSource } from '../env.ts';
import { StageError, type StageName } from '../errors.ts';
import type { ConnectorCommand } from '../resolve-command.ts';
import { spawnConnector, type ConnectorProcess, type ExitResult } from '../spawn.ts';

export interface ProcessOptions {
  baseEnv: EnvSource;
  /** The job's environment_variables. */
  envVars?: Readonly<Record<string, unknown>> | null;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** SIGTERM -> SIGKILL grace period; default 5000. */
  killGraceMs?: number;
  /** Sink for human-readable log lines (connector stderr, summaries). */
  log?: (line: string) => void;
}

export interface ConnectorStageOptions extends ProcessOptions {
  /** From resolveCommand(). */
  connector: ConnectorCommand;
  /** Connector config (credentials included); written to a private 0600 file only. */
  config: Readonly<Record<string, unknown>>;
  /** Parent folder of the private config folder; default os.tmpdir(). */
  privateDirParent?: string;
}

/** Throws a StageError when a connector process did not exit cleanly with code 0. */
export function checkExit(stage: StageName, who: string, exit: ExitResult, stderrTail: readonly string[], timeoutMs?: number): void {
  const problem = exitProblem(who, exit, timeoutMs);
  if (problem === undefined) return;
  const kind = exit.timedOut ? 'timeout' : exit.aborted ? 'aborted' : 'failed';
  const tail = kind === 'failed' && stderrTail.length > 0 ? `\n${stderrTail.slice(-10).join('\n')}` : '';
  throw new StageError(stage, `${problem}${tail}`, { kind, exitCode: exit.code, stderrTail, cause: exit.error });
}

function exitProblem(who: string, exit: ExitResult, timeoutMs?: number): string | undefined {
  if (exit.error) return `${who} could not be started: ${exit.error.message}`;
  if (exit.timedOut) return `${who} timed out after ${timeoutMs} ms`;
  if (exit.aborted) return `${who} was cancelled`;
  if (exit.killReason !== undefined) return `${who} was stopped: ${exit.killReason}`;
  if (exit.code !== 0) return exit.signal ? `${who} was killed by ${exit.signal}` : `${who} exited with code ${exit.code}`;
  return undefined;
}

/** Wraps a non-StageError failure (parse error, I/O error) into a StageError. */
export function asStageError(stage: StageName, error: unknown, context: string): StageError {
  if (error instanceof StageError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new StageError(stage, `${context}: ${message}`, { cause: error });
}

/** A log sink that prefixes each line with the process it came from. */
export function prefixed(log: ((line: string) => void) | undefined, prefix: string): ((line: string) => void) | undefined {
  return log === undefined ? undefined : (line) => log(`${prefix}: ${line}`);
}

/** Starts the stage's connector with the stage's process options and `args` after its own. */
export function spawnStageConnector(options: ConnectorStageOptions, args: string[], role: 'tap' | 'target'): ConnectorProcess {
  return spawnConnector({
    command: options.connector.command,
    args: [...options.connector.args, ...args],
    baseEnv: options.baseEnv,
    envVars: { ...options.connector.env, ...options.envVars },
    stdin: role === 'target' ? 'pipe' : 'ignore',
    signal: options.signal,
    timeoutMs: options.timeoutMs,
    killGraceMs: options.killGraceMs,
    onStderrLine: prefixed(options.log, role),
  });
}
