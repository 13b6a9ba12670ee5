// Jobs running in this process, so a kill (or a shutdown) can stop their
// processes at once. Jobs running in another process are reached through the
// database: their worker's heartbeat sees the finished status and aborts there.

interface LocalRun {
  readonly controller: AbortController;
  readonly done: Promise<void>;
}

const runs = new Map<string, LocalRun>();

export function registerLocalRun(jobId: string, run: LocalRun): void {
  runs.set(jobId, run);
}

export function unregisterLocalRun(jobId: string): void {
  runs.delete(jobId);
}

export function isRunningHere(jobId: string): boolean {
  return runs.has(jobId);
}

/** Aborts the job's run in this process, if any, and resolves once its processes are gone. */
export async function abortLocalRun(jobId: string, reason: string): Promise<boolean> {
  const run = runs.get(jobId);
  if (!run) return false;
  run.controller.abort(reason);
  await run.done;
  return true;
}
