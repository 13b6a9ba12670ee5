// Processes a dead worker left behind. Connector processes run in their own
// process groups (sessions), so they outlive a worker killed with SIGKILL; each
// carries TAPLINE_JOB_ID in its environment, which is how they are found here.
// Linux only (/proc); elsewhere this finds nothing.
import { readdir, readFile } from 'node:fs/promises';

export async function pidsOfJob(jobId: string): Promise<number[]> {
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return [];
  }
  const marker = `\0TAPLINE_JOB_ID=${jobId}\0`;
  const found: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const environ = await readFile(`/proc/${entry}/environ`, 'latin1');
      if (`\0${environ}\0`.includes(marker)) found.push(Number(entry));
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

/** SIGKILLs every process of job `jobId` on this host; returns how many were found. */
export async function killJobProcesses(jobId: string): Promise<number> {
  const pids = await pidsOfJob(jobId);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  return pids.length;
}
