// In-process wake-up of job workers: a new runnable job (created, or started
// from the queue) is picked up at once instead of at the next poll.
const listeners = new Set<() => void>();

export function onJobsReady(listener: () => void): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

export function notifyJobsReady(): void {
  for (const listener of listeners) listener();
}
