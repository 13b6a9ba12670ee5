// Peak RSS of our child processes (connectors), without assuming /usr/bin/time:
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
  private readonly childrenFile = `/proc/${process.pid}/task/${process.pid}/children`;

  constructor(intervalMs = 20) {
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
      try {
        const status = readFileSync(`/proc/${pid}/status`, 'utf8');
        const hwm = /VmHWM:\s+(\d+) kB/.exec(status);
        if (!hwm) continue;
        const known = this.peaks.get(pid);
        if (known) known.peakKb = Math.max(known.peakKb, Number(hwm[1]));
        else this.peaks.set(pid, { pid, command: commandOf(pid), peakKb: Number(hwm[1]) });
      } catch {
        // exited between the two reads
      }
    }
  }
}

function commandOf(pid: number): string {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    const script = argv.find((a) => /\.(ts|mjs|js|py)$/.test(a));
    return (script ?? argv[0] ?? '?').split('/').pop() ?? '?';
  } catch {
    return '?';
  }
}
