// The in-process half of the ETL stage: projects each stream of a sync folder
// onto the fields of the field map, under the mapped stream name.
import { copyFile, mkdir } from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { LineSplitter } from '../lines.ts';
import { JsonlWriter, listStreamFiles, readSchemas, streamFileName, writeSchemas, type StreamFile, type StreamSchema } from '../stage-files.ts';
import { mappingFor, type FieldMap } from './field-map.ts';
import { Projector } from './projector.ts';

export interface MapResult {
  recordCount: number;
  /** Records per output stream name. */
  perStream: Record<string, number>;
}

/** Called between chunks; throws to stop (deadline, abort). */
export type Checkpoint = () => void;

export async function applyFieldMap(inputDir: string, outDir: string, fieldMap: FieldMap | null | undefined, checkpoint: Checkpoint): Promise<MapResult> {
  await mkdir(outDir, { recursive: true });
  const schemas = await readSchemas(inputDir);
  const outSchemas = new Map<string, StreamSchema>();
  const counts = new Map<string, number>();
  // Several source streams may map to one name: they share one writer, in file order.
  const writers = new Map<string, JsonlWriter>();
  const plan = (await listStreamFiles(inputDir)).flatMap((file) => {
    const mapping = mappingFor(fieldMap, file.stream);
    return mapping ? [{ file, ...mapping }] : [];
  });
  const sources = new Map<string, number>();
  for (const { name } of plan) sources.set(name, (sources.get(name) ?? 0) + 1);
  try {
    for (const { file, name, selected } of plan) {
      const schema = schemas.get(file.stream);
      if (schema && !outSchemas.has(name)) outSchemas.set(name, projectSchema(schema, selected));
      const outPath = join(outDir, streamFileName(name));
      let n: number;
      if (selected === undefined && sources.get(name) === 1) {
        // Unchanged stream: a kernel-side copy instead of parsing every record.
        await copyFile(file.path, outPath);
        n = await countNewlines(file.path, checkpoint);
      } else {
        let writer = writers.get(name);
        if (!writer) {
          writer = new JsonlWriter(outPath);
          writers.set(name, writer);
        }
        n = await projectFile(file, writer, selected, checkpoint);
      }
      counts.set(name, (counts.get(name) ?? 0) + n);
    }
    for (const writer of writers.values()) await writer.close();
  } catch (error) {
    for (const writer of writers.values()) writer.destroy();
    throw error;
  }
  await writeSchemas(outDir, outSchemas);
  let recordCount = 0;
  for (const n of counts.values()) recordCount += n;
  return { recordCount, perStream: Object.fromEntries(counts) };
}

/** Writes each record of `file` reduced to `selected` (all fields when undefined). */
async function projectFile(file: StreamFile, writer: JsonlWriter, selected: readonly string[] | undefined, checkpoint: Checkpoint): Promise<number> {
  let n = 0;
  const projector = selected === undefined ? undefined : new Projector(selected);
  const lines = new LineSplitter((line, lineNumber) => {
    if (line.trim() === '') return;
    writer.add(projector === undefined ? line : projector.project(line, lineNumber, file.stream));
    n++;
  });
  for await (const chunk of createReadStream(file.path, { highWaterMark: 64 * 1024 }) as AsyncIterable<Buffer>) {
    checkpoint();
    lines.push(chunk);
    if (writer.needsFlush) await writer.flush();
  }
  lines.end();
  return n;
}

function projectSchema(entry: StreamSchema, selected: readonly string[] | undefined): StreamSchema {
  if (selected === undefined) return entry;
  const keep = new Set(selected);
  const schema = { ...entry.schema };
  const properties = schema.properties as Record<string, unknown> | undefined;
  if (properties) schema.properties = Object.fromEntries(Object.entries(properties).filter(([k]) => keep.has(k)));
  if (Array.isArray(schema.required)) schema.required = schema.required.filter((k: unknown) => typeof k === 'string' && keep.has(k));
  const result: StreamSchema = { ...entry, schema };
  if (entry.key_properties) result.key_properties = entry.key_properties.filter((k) => keep.has(k));
  if (entry.bookmark_properties) result.bookmark_properties = entry.bookmark_properties.filter((k) => keep.has(k));
  return result;
}

/** Lines of a file written by us (one record per line, newline-terminated). */
async function countNewlines(path: string, checkpoint: Checkpoint): Promise<number> {
  let n = 0;
  let last = 10;
  for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>) {
    checkpoint();
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) n++;
    if (chunk.length > 0) last = chunk[chunk.length - 1];
  }
  return last === 10 ? n : n + 1;
}

/** Non-blank lines of a file (record count of a stream written by an ETL script). */
export async function countLines(file: StreamFile, checkpoint: Checkpoint = () => {}): Promise<number> {
  let n = 0;
  const lines = new LineSplitter((line) => {
    if (line.trim() !== '') n++;
  }, { onLongLine: 'truncate' });
  for await (const chunk of createReadStream(file.path, { highWaterMark: 64 * 1024 }) as AsyncIterable<Buffer>) {
    checkpoint();
    lines.push(chunk);
  }
  lines.end();
  return n;
}
