// discover: runs `<tap> --config FILE --discover` and returns the catalog it prints.
import { StageError } from '../errors.ts';
import { withPrivateDir } from '../private-dir.ts';
import type { SingerCatalog } from './select-catalog.ts';
import { checkExit, spawnStageConnector, type ConnectorStageOptions } from './common.ts';

export type DiscoverOptions = ConnectorStageOptions;

const MAX_CATALOG_BYTES = 256 * 1024 * 1024;

export async function runDiscover(options: DiscoverOptions): Promise<SingerCatalog> {
  return withPrivateDir(async (dir) => {
    const configFile = await dir.writeJson('config.json', options.config);
    const proc = spawnStageConnector(options, ['--config', configFile, '--discover'], 'tap');
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of proc.stdout as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_CATALOG_BYTES) {
        proc.kill('catalog too large');
        break;
      }
      chunks.push(chunk);
    }
    const exit = await proc.done;
    if (size > MAX_CATALOG_BYTES) throw new StageError('discover', `catalog larger than ${MAX_CATALOG_BYTES} bytes`);
    checkExit('discover', 'tap', exit, proc.stderrTail(), options.timeoutMs);
    const catalog = parseCatalog(Buffer.concat(chunks).toString('utf8'));
    options.log?.(`discover: ${catalog.streams.length} streams`);
    return catalog;
  }, options.privateDirParent);
}

function parseCatalog(text: string): SingerCatalog {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new StageError('discover', 'tap printed a catalog that is not valid JSON');
  }
  const streams = (value as { streams?: unknown } | null)?.streams;
  if (!Array.isArray(streams)) throw new StageError('discover', 'tap printed a catalog without a "streams" array');
  return value as SingerCatalog;
}
