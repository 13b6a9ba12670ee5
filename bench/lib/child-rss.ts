// Peak RSS of a process' children (connectors), without assuming /usr/bin/time:
// polls /proc/<child>/status VmHWM (the kernel's high-water mark of a process'
// resident set, so a poll only has to happen before the process exits).
import { readFileSync } from 'node:fs';

export interface ChildPeak {
  pid: number;
  command: string;
  peakKb: number;
}

export class ChildRssPoller {
  private readonly peaks = new Map<number, ChildPeak>();
  private readonly timer: NodeJS.Timeout;
  private readonly childrenFile: string;

  /** Children of `parentPid` (default: this process), polled every `intervalMs`. */
  constructor(intervalMs = 20, parentPid = process.pid) {
    // Node spawns from its main thread, whose task id is the process id.
    this.childrenFile = `/proc/${parentPid}/task/${parentPid}/children`;
    this.timer = setInterval(() => this.poll(), intervalMs);
    this.timer.unref();
  }

  /** Peaks of the children seen since the last take(), forgetting them. */
  take(): ChildPeak[] {
    this.poll();
    const peaks = [...this.peaks.values()];
    this.peaks.clear();
    return peaks;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private poll(): void {
    let pids: number[];
    try {
      pids = readFileSync(this.childrenFile, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    } catch {
      return; // not Linux, or /proc without CONFIG_PROC_CHILDREN: no figures
    }
    for (const pid of pids) {
      const peakKb = peakRssKb(pid);
      if (peakKb === undefined) continue; // exited between the two reads
      // The command is read again each time: a child seen between fork and exec still shows its parent's.
      const known = this.peaks.get(pid);
      const command = commandOf(pid);
      this.peaks.set(pid, { pid, command: command === '?' && known ? known.command : command, peakKb: Math.max(known?.peakKb ?? 0, peakKb) });
    }
  }
}

/** VmHWM of a live process in kB (its peak RSS so far), or undefined. */
export function peakRssKb(pid: number): number | undefined {
  try {
    const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return hwm ? Number(hwm[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Script name, with the Singer mode of a discovery: `tap-sample.ts --discover`. */
function commandOf(pid: number): string {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    const script = argv.find((a) => /\.(ts|mjs|js|py)$/.test(a));
    const name = (script ?? argv[0] ?? '?').split('/').pop() ?? '?';
    return argv.includes('--discover') ? `${name} --discover` : name;
  } catch {
    return '?';
  }
}
