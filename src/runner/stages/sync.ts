// sync: runs `<tap> --config F --catalog F [--state F]` and splits its Singer
// output into a stage folder (see stage-files.ts). Streaming, constant memory:
// stdout is parsed chunk by chunk and the tap is paused while files catch up.
import { mkdir } from 'node:fs/promises';
import { SingerParseError, StageError } from '../errors.ts';
import { withPrivateDir } from '../private-dir.ts';
import { SingerParser } from '../singer.ts';
import { asStageError, checkExit, spawnStageConnector, type ConnectorStageOptions } from './common.ts';
import type { SingerCatalog } from './select-catalog.ts';
import { SyncSink } from './sync-sink.ts';

export interface SyncOptions extends ConnectorStageOptions {
  /** The catalog with selection applied (selectCatalog). */
  catalog: SingerCatalog;
  /** Source state (bookmarks) of the previous job; null/undefined = full sync. */
  state?: unknown;
  /** Stage folder to write; created if missing. */
  outDir: string;
}

export interface SyncResult {
  recordCount: number;
  perStream: Record<string, number>;
  /** Value of the last STATE message, or null when the tap sent none. */
  state: unknown;
  /** Bytes the tap wrote to stdout. */
  bytes: number;
}

export async function runSync(options: SyncOptions): Promise<SyncResult> {
  await mkdir(options.outDir, { recursive: true });
  return withPrivateDir(async (dir) => {
    const args = ['--config', await dir.writeJson('config.json', options.config)];
    args.push('--catalog', await dir.writeJson('catalog.json', options.catalog));
    if (options.state !== null && options.state !== undefined) args.push('--state', await dir.writeJson('state.json', options.state));
    const proc = spawnStageConnector(options, args, 'tap');
    const sink = new SyncSink(options.outDir);
    const parser = new SingerParser(sink.onMessage, { onRecordJson: sink.onRecordJson });
    let bytes = 0;
    try {
      for await (const chunk of proc.stdout as AsyncIterable<Buffer>) {
        bytes += chunk.length;
        parser.push(chunk);
        await sink.settle();
      }
      const exit = await proc.done;
      checkExit('sync', 'tap', exit, proc.stderrTail(), options.timeoutMs);
      parser.end();
      await sink.close();
    } catch (error) {
      proc.kill('sync failed');
      sink.destroy();
      await proc.done;
      throw error instanceof SingerParseError
        ? new StageError('sync', `tap output ${error.message}`, { cause: error })
        : asStageError('sync', error, 'sync failed');
    }
    const result: SyncResult = { recordCount: sink.recordCount(), perStream: sink.perStream(), state: sink.state, bytes };
    options.log?.(`sync: ${result.recordCount} records in ${Object.keys(result.perStream).length} streams`);
    return result;
  }, options.privateDirParent);
}
