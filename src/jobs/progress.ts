// processed_rows (and the per-stream record counts) of a running sync, so polling
// clients see a long sync move. The runner writes one JSON-lines file per stream
// into the sync folder; this counts the lines appended since the last look, every
// few seconds, and updates the job row while it is still SYNC_STARTED (no event: the
// status does not change). The runner buffers each file (64 KiB), so a slow trickle
// shows up in steps.
import { open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import type { EnvScope } from '../auth/scope.ts';
import type { Database } from '../db/types.ts';

const EXT = '.jsonl';
const NEWLINE = 0x0a;

/** Counts newline-terminated lines of the files of one folder, reading only what was appended. */
export class LineCounter {
  private readonly dir: string;
  private readonly files = new Map<string, { offset: number; lines: number }>();
  private readonly buffer = Buffer.allocUnsafe(1 << 20);

  constructor(dir: string) {
    this.dir = dir;
  }

  /** Lines per stream (file names decoded) as of now. */
  async count(): Promise<Record<string, number>> {
    let names: string[];
    try {
      names = (await readdir(this.dir)).filter((n) => n.endsWith(EXT));
    } catch {
      return {}; // the tap has not written yet
    }
    const counts: Record<string, number> = {};
    for (const name of names) counts[streamOf(name)] = await this.countFile(name);
    return counts;
  }

  private async countFile(name: string): Promise<number> {
    const seen = this.files.get(name) ?? { offset: 0, lines: 0 };
    this.files.set(name, seen);
    const file = await open(join(this.dir, name), 'r').catch(() => null);
    if (!file) return seen.lines;
    try {
      for (;;) {
        const { bytesRead } = await file.read(this.buffer, 0, this.buffer.length, seen.offset);
        if (bytesRead === 0) break;
        seen.offset += bytesRead;
        let at = this.buffer.indexOf(NEWLINE, 0);
        while (at !== -1 && at < bytesRead) {
          seen.lines++;
          at = this.buffer.indexOf(NEWLINE, at + 1);
        }
      }
    } finally {
      await file.close();
    }
    return seen.lines;
  }
}

function streamOf(fileName: string): string {
  const base = fileName.slice(0, -EXT.length);
  try {
    return decodeURIComponent(base);
  } catch {
    return base;
  }
}

export function total(perStream: Record<string, number>): number {
  let sum = 0;
  for (const n of Object.values(perStream)) sum += n;
  return sum;
}

export interface ProgressOptions {
  db: Kysely<Database>;
  scope: EnvScope;
  jobId: string;
  /** The sync's output folder. */
  dir: string;
  intervalMs: number;
  now: () => number;
  onError: (error: unknown) => void;
}

/** Starts updating the job's progress every intervalMs; stop() ends it (and waits for a running update). */
export function trackSyncProgress(opts: ProgressOptions): { stop(): Promise<void> } {
  const counter = new LineCounter(opts.dir);
  let last = -1;
  let running: Promise<void> | null = null;
  const update = async () => {
    const perStream = await counter.count();
    const rows = total(perStream);
    if (rows === last) return;
    last = rows;
    await opts.db.updateTable('jobs')
      .set({ processed_rows: rows, record_counts: JSON.stringify(perStream), last_updated: opts.now() })
      .where('env_id', '=', opts.scope.envId).where('job_id', '=', opts.jobId).where('status', '=', 'SYNC_STARTED')
      .execute();
  };
  const timer = setInterval(() => {
    if (running) return; // the last look is still reading: skip this tick
    running = update().catch(opts.onError).finally(() => {
      running = null;
    });
  }, opts.intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
