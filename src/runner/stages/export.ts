// export: replays a stage folder to a target as Singer messages on its stdin
// (SCHEMA, then the stream's RECORDs, per stream; then one STATE) and checks that
// the target exited with 0 and echoed a state.
import { StageError } from '../errors.ts';
import { LineSplitter } from '../lines.ts';
import { withPrivateDir } from '../private-dir.ts';
import { listStreamFiles, readSchemas } from '../stage-files.ts';
import { asStageError, checkExit, prefixed, spawnStageConnector, type ConnectorStageOptions } from './common.ts';
import { ExportInputError, feedTarget } from './export-feed.ts';

export interface ExportOptions extends ConnectorStageOptions {
  /** Stage folder to export (EtlResult.outputDir). */
  inputDir: string;
  /** Value of the final STATE message (the job's state); default {}. */
  state?: unknown;
  /** Fail when the target echoes no state; default true. */
  requireEchoedState?: boolean;
}

export interface ExportResult {
  recordCount: number;
  perStream: Record<string, number>;
  /** Last state the target printed on stdout, or null. */
  echoedState: unknown;
}

export async function runExport(options: ExportOptions): Promise<ExportResult> {
  let files, schemas;
  try {
    files = await listStreamFiles(options.inputDir);
    schemas = await readSchemas(options.inputDir);
  } catch (error) {
    throw asStageError('export', error, 'cannot read the export input');
  }
  return withPrivateDir(async (dir) => {
    const proc = spawnStageConnector(options, ['--config', await dir.writeJson('config.json', options.config)], 'target');
    const echo = readEchoedState(proc.stdout, prefixed(options.log, 'target')).catch(() => undefined);
    let fed;
    try {
      fed = await feedTarget(proc.stdin!, files, schemas, options.state ?? {});
    } catch (error) {
      // Our own input is bad: stop the target and say so. A write error means the
      // target went away: its exit status below is the better explanation.
      if (error instanceof ExportInputError) {
        proc.kill('export input invalid');
        await proc.done;
        throw new StageError('export', error.message, { cause: error });
      }
      proc.stdin!.destroy();
    }
    const exit = await proc.done;
    const echoedState = await echo;
    checkExit('export', 'target', exit, proc.stderrTail(), options.timeoutMs);
    if (!fed) throw new StageError('export', 'target stopped reading its input');
    if (echoedState === undefined && options.requireEchoedState !== false) {
      throw new StageError('export', 'target exited without echoing a STATE');
    }
    options.log?.(`export: ${fed.recordCount} records in ${Object.keys(fed.perStream).length} streams`);
    return { ...fed, echoedState: echoedState ?? null };
  }, options.privateDirParent);
}

// Targets print the states they have committed on stdout, one JSON value per line
// (singer-python style), some as a full STATE message: accept both. Other lines
// are logged.
async function readEchoedState(stdout: NodeJS.ReadableStream, log: ((line: string) => void) | undefined): Promise<unknown> {
  let state: unknown;
  const lines = new LineSplitter((line) => {
    if (line.trim() === '') return;
    try {
      const value: unknown = JSON.parse(line);
      const message = value as { type?: unknown; value?: unknown } | null;
      state = message !== null && typeof message === 'object' && message.type === 'STATE' && 'value' in message ? message.value : value;
    } catch {
      log?.(line);
    }
  }, { maxLineBytes: 64 * 1024 * 1024, onLongLine: 'truncate' });
  for await (const chunk of stdout as AsyncIterable<Buffer>) lines.push(chunk);
  lines.end();
  return state;
}
