// The twelve job statuses of the API description and the ONE table of moves
// between them. Pure: transitionJob (status.ts) refuses any move not listed here.

export const JOB_STATUSES = [
  'JOB_CREATED',
  'DISCOVER_STARTED', 'DISCOVER_FAILED',
  'SYNC_STARTED', 'SYNC_FAILED', 'SYNC_SUCCESS',
  'ETL_STARTED', 'ETL_FAILED', 'ETL_SUCCESS',
  'EXPORT_STARTED', 'EXPORT_FAILED',
  'JOB_COMPLETED',
] as const;

export type JobStatus = (typeof JOB_STATUSES)[number];

/**
 * Every allowed move. Besides the happy path, each non-terminal status may move to
 * the failed status of the stage it is in or about to start (kill, crash, timeout),
 * and a job without export side completes straight after ETL (or after sync when streaming).
 */
export const TRANSITIONS: Readonly<Record<JobStatus, readonly JobStatus[]>> = {
  JOB_CREATED: ['DISCOVER_STARTED', 'SYNC_STARTED', 'SYNC_FAILED'],
  DISCOVER_STARTED: ['SYNC_STARTED', 'DISCOVER_FAILED'],
  DISCOVER_FAILED: [],
  SYNC_STARTED: ['SYNC_SUCCESS', 'SYNC_FAILED'],
  SYNC_FAILED: [],
  // ETL next; streaming jobs skip it (export, or completion without export side).
  SYNC_SUCCESS: ['ETL_STARTED', 'EXPORT_STARTED', 'JOB_COMPLETED', 'ETL_FAILED', 'EXPORT_FAILED'],
  ETL_STARTED: ['ETL_SUCCESS', 'ETL_FAILED'],
  ETL_FAILED: [],
  ETL_SUCCESS: ['EXPORT_STARTED', 'JOB_COMPLETED', 'EXPORT_FAILED'],
  EXPORT_STARTED: ['JOB_COMPLETED', 'EXPORT_FAILED'],
  EXPORT_FAILED: [],
  JOB_COMPLETED: [],
};

export const TERMINAL_STATUSES: readonly JobStatus[] = JOB_STATUSES.filter((s) => TRANSITIONS[s].length === 0);
export const ACTIVE_STATUSES: readonly JobStatus[] = JOB_STATUSES.filter((s) => TRANSITIONS[s].length > 0);

export function isJobStatus(value: string): value is JobStatus {
  return (JOB_STATUSES as readonly string[]).includes(value);
}

export function isTerminal(status: string): boolean {
  return (TERMINAL_STATUSES as readonly string[]).includes(status);
}

export function canTransition(from: string, to: string): boolean {
  return isJobStatus(from) && isJobStatus(to) && TRANSITIONS[from].includes(to);
}

/**
 * The status a job in `status` ends in when it is killed or its worker is lost:
 * the failed status of the stage it is in, or of the next stage between two.
 * A job that had not started a stage counts as a failed sync. null when terminal.
 */
export function failedStatusOf(status: string, streaming: boolean): JobStatus | null {
  switch (status) {
    case 'JOB_CREATED':
    case 'SYNC_STARTED':
      return 'SYNC_FAILED';
    case 'DISCOVER_STARTED':
      return 'DISCOVER_FAILED';
    case 'SYNC_SUCCESS':
      return streaming ? 'EXPORT_FAILED' : 'ETL_FAILED';
    case 'ETL_STARTED':
      return 'ETL_FAILED';
    case 'ETL_SUCCESS':
    case 'EXPORT_STARTED':
      return 'EXPORT_FAILED';
    default:
      return null;
  }
}
