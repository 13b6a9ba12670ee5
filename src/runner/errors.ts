// Errors raised by the runner. Pure: the job engine maps them to job statuses
// (e.g. a StageError with stage 'sync' becomes SYNC_FAILED).

export type StageName = 'discover' | 'sync' | 'etl' | 'export';
/** failed: the stage's own failure; timeout: timeoutMs elapsed; aborted: the AbortSignal fired. */
export type StageFailureKind = 'failed' | 'timeout' | 'aborted';

/** A stage failed; `message` is readable and safe to show to a tenant (no config values). */
export class StageError extends Error {
  readonly stage: StageName;
  readonly kind: StageFailureKind;
  /** Exit code of the failing process, when one exited. */
  readonly exitCode: number | null;
  /** Last stderr lines of the failing process (already part of `message`). */
  readonly stderrTail: readonly string[];

  constructor(
    stage: StageName,
    message: string,
    details: { kind?: StageFailureKind; exitCode?: number | null; stderrTail?: readonly string[]; cause?: unknown } = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'StageError';
    this.stage = stage;
    this.kind = details.kind ?? 'failed';
    this.exitCode = details.exitCode ?? null;
    this.stderrTail = details.stderrTail ?? [];
  }
}

/** Error of the Singer parser: names the 1-based line of the stream that failed. */
export class SingerParseError extends Error {
  readonly lineNumber: number;
  constructor(lineNumber: number, reason: string) {
    super(`line ${lineNumber}: ${reason}`);
    this.name = 'SingerParseError';
    this.lineNumber = lineNumber;
  }
}
