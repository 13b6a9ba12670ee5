// etl: applies the field map to the sync folder (in process), then optionally
// runs an ETL command that reads INPUT_DIR and writes OUTPUT_DIR.
import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { StageError } from '../errors.ts';
import { LineSplitter } from '../lines.ts';
import type { ConnectorCommand } from '../resolve-command.ts';
import { spawnConnector } from '../spawn.ts';
import { listStreamFiles, SCHEMAS_FILE } from '../stage-files.ts';
import { applyFieldMap, countLines } from './apply-field-map.ts';
import { asStageError, checkExit, prefixed, type ProcessOptions } from './common.ts';
import type { FieldMap } from './field-map.ts';

export interface EtlJobInfo {
  jobId: string;
  tenant: string;
  flow: string;
  envId: string;
}

export interface EtlOptions extends ProcessOptions {
  /** Sync output folder. */
  inputDir: string;
  /** Where the field-mapped streams go (the command's INPUT_DIR). */
  outDir: string;
  fieldMap?: FieldMap | null;
  /** Optional ETL command; runs with INPUT_DIR=outDir, OUTPUT_DIR=commandOutputDir. */
  command?: ConnectorCommand | null;
  /** Required with `command`: the folder it writes (created empty if missing). */
  commandOutputDir?: string;
  job: EtlJobInfo;
  /** timeoutMs (ProcessOptions) covers the whole stage: mapping and command. */
}

export interface EtlResult {
  /** Folder to export: commandOutputDir when a command ran, else outDir. */
  outputDir: string;
  recordCount: number;
  perStream: Record<string, number>;
}

export async function runEtl(options: EtlOptions): Promise<EtlResult> {
  const started = Date.now();
  const checkpoint = (): void => {
    if (options.signal?.aborted) throw new StageError('etl', 'ETL was cancelled', { kind: 'aborted' });
    if (options.timeoutMs !== undefined && Date.now() - started > options.timeoutMs) {
      throw new StageError('etl', `ETL timed out after ${options.timeoutMs} ms`, { kind: 'timeout' });
    }
  };
  let mapped;
  try {
    checkpoint();
    mapped = await applyFieldMap(options.inputDir, options.outDir, options.fieldMap, checkpoint);
  } catch (error) {
    throw asStageError('etl', error, 'field map failed');
  }
  options.log?.(`etl: field map wrote ${mapped.recordCount} records`);
  if (!options.command) return { outputDir: options.outDir, ...mapped };
  if (!options.commandOutputDir) throw new StageError('etl', 'an ETL command needs commandOutputDir');
  const remaining = options.timeoutMs === undefined ? undefined : Math.max(1, options.timeoutMs - (Date.now() - started));
  await runEtlCommand(options, options.command, options.commandOutputDir, remaining);
  return { outputDir: options.commandOutputDir, ...(await countOutput(options.outDir, options.commandOutputDir)) };
}

async function runEtlCommand(options: EtlOptions, command: ConnectorCommand, outputDir: string, timeoutMs: number | undefined): Promise<void> {
  await mkdir(outputDir, { recursive: true });
  const stageVars = {
    INPUT_DIR: options.outDir,
    OUTPUT_DIR: outputDir,
    JOB_ID: options.job.jobId,
    TENANT: options.job.tenant,
    FLOW: options.job.flow,
    ENV_ID: options.job.envId,
  };
  let proc;
  try {
    // Stage variables last: a job variable cannot redirect INPUT_DIR/OUTPUT_DIR.
    proc = spawnConnector({
      command: command.command,
      args: command.args,
      baseEnv: options.baseEnv,
      envVars: { ...options.envVars, ...stageVars },
      signal: options.signal,
      timeoutMs,
      killGraceMs: options.killGraceMs,
      onStderrLine: prefixed(options.log, 'etl'),
    });
  } catch (error) {
    throw asStageError('etl', error, 'ETL command could not be started');
  }
  const log = prefixed(options.log, 'etl');
  const stdoutLines = new LineSplitter((line) => log?.(line), { maxLineBytes: 64 * 1024, onLongLine: 'truncate' });
  for await (const chunk of proc.stdout as AsyncIterable<Buffer>) stdoutLines.push(chunk);
  stdoutLines.end();
  checkExit('etl', 'ETL command', await proc.done, proc.stderrTail(), timeoutMs);
}

/** Counts what the command wrote; gives it the mapped schemas if it wrote none. */
async function countOutput(mappedDir: string, outputDir: string): Promise<Omit<EtlResult, 'outputDir'>> {
  try {
    await copyFile(join(mappedDir, SCHEMAS_FILE), join(outputDir, SCHEMAS_FILE), 1 /* COPYFILE_EXCL */);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw asStageError('etl', error, 'ETL output');
  }
  const counts = new Map<string, number>();
  let recordCount = 0;
  for (const file of await listStreamFiles(outputDir)) {
    const n = await countLines(file);
    counts.set(file.stream, n);
    recordCount += n;
  }
  return { recordCount, perStream: Object.fromEntries(counts) };
}
