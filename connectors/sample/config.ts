/** tap-sample's config file, validated. */

export interface SampleConfig {
  recordCount: number;
  seed: number;
  streams?: string[];
  startMs?: number;
  endMs?: number;
  failAfter?: number;
  sleepMsPerRecord: number;
  stateInterval: number;
}

function nonNegativeInt(config: Record<string, unknown>, key: string): number | undefined {
  const v = config[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) {
    throw new Error(`config.${key} must be a non-negative integer`);
  }
  return v;
}

function dateMs(config: Record<string, unknown>, key: string): number | undefined {
  const v = config[key];
  if (v === undefined || v === null || v === '') return undefined;
  const ms = typeof v === 'string' ? Date.parse(v) : NaN;
  if (Number.isNaN(ms)) throw new Error(`config.${key} must be an ISO date or date-time string`);
  return ms;
}

export function parseSampleConfig(config: Record<string, unknown>): SampleConfig {
  const seed = config.seed ?? 1;
  if (typeof seed !== 'number' || !Number.isSafeInteger(seed)) throw new Error('config.seed must be an integer');
  const streams = config.streams ?? undefined;
  if (streams !== undefined && (!Array.isArray(streams) || streams.some((s) => typeof s !== 'string'))) {
    throw new Error('config.streams must be a list of stream names');
  }
  const sleep = config.sleep_ms_per_record ?? 0;
  if (typeof sleep !== 'number' || !(sleep >= 0)) throw new Error('config.sleep_ms_per_record must be >= 0');
  const stateInterval = nonNegativeInt(config, 'state_interval') ?? 10_000;
  if (stateInterval === 0) throw new Error('config.state_interval must be positive');
  return {
    recordCount: nonNegativeInt(config, 'record_count') ?? 100,
    seed,
    streams: streams as string[] | undefined,
    startMs: dateMs(config, 'start_date'),
    endMs: dateMs(config, 'end_date'),
    failAfter: nonNegativeInt(config, 'fail_after'),
    sleepMsPerRecord: sleep,
    stateInterval,
  };
}
