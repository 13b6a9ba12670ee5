// Worker identities: "<host>/<pid>/<random>", so recovery on the same host can
// tell at once that a worker's process is gone (no need to wait for its heartbeat).
import crypto from 'node:crypto';
import { readFileSync } from 'node:fs';
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

/** Whether process `pid` exists and is not a zombie (a killed child its reaper has not collected yet). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true; // no /proc (not Linux): kill(0) is all we know
  }
}

/** True when `id` names a worker of this host whose process (or, in this process, whose loop) is gone. */
export function isDeadLocalWorker(id: string): boolean {
  const parts = id.split('/');
  if (parts.length !== 3 || parts[0] !== os.hostname()) return false;
  const pid = Number(parts[1]);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return !liveHere.has(id);
  return !processAlive(pid);
}
