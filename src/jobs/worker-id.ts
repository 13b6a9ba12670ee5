// Worker identities: "<host>/<pid>/<random>", so recovery on the same host can
// tell at once that a worker's process is gone (no need to wait for its heartbeat).
import crypto from 'node:crypto';
import os from 'node:os';

const liveHere = new Set<string>();

export function newWorkerId(): string {
  const id = `${os.hostname()}/${process.pid}/${crypto.randomBytes(4).toString('hex')}`;
  liveHere.add(id);
  return id;
}

export function retireWorkerId(id: string): void {
  liveHere.delete(id);
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** True when `id` names a worker of this host whose process (or, in this process, whose loop) is gone. */
export function isDeadLocalWorker(id: string): boolean {
  const parts = id.split('/');
  if (parts.length !== 3 || parts[0] !== os.hostname()) return false;
  const pid = Number(parts[1]);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return !liveHere.has(id);
  return !pidAlive(pid);
}
