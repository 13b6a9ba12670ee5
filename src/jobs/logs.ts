// A job's log (`job.log` in its storage folder): stage messages and connector
// stderr, one timestamped line each, secrets redacted before anything is written.
import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Redactor } from './redact.ts';

export const JOB_LOG_FILE = 'job.log';
const DEFAULT_MAX_BYTES = 20 * 1024 * 1024;

export interface JobLog {
  line(text: string): void;
  close(): Promise<void>;
}

/** Appends to `file`; past `maxBytes` further lines are dropped (one notice says so). */
export function openJobLog(file: string, redact: Redactor, now: () => number, maxBytes = DEFAULT_MAX_BYTES): JobLog {
  const out: WriteStream = createWriteStream(file, { flags: 'a', mode: 0o600 });
  out.on('error', () => {}); // a log write failure must not fail the job
  let written = 0;
  let full = false;
  return {
    line(text) {
      if (full) return;
      const entry = `${new Date(now()).toISOString()} ${redact(text).replace(/\r?\n/g, '\n    ')}\n`;
      written += Buffer.byteLength(entry);
      if (written > maxBytes) {
        full = true;
        out.write(`${new Date(now()).toISOString()} [log limit of ${maxBytes} bytes reached; further lines dropped]\n`);
        return;
      }
      out.write(entry);
    },
    async close() {
      if (out.closed) return;
      out.end();
      await once(out, 'close').catch(() => {});
    },
  };
}
