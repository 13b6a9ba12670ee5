// Where a tap's Singer messages go during sync: records into one JSON-lines file
// per stream, schemas into _schemas.json, the last STATE value kept.
import { join } from 'node:path';
import { rawRecordJson, type BatchMessage, type SingerMessage } from '../singer.ts';
import { JsonlWriter, streamFileName, writeSchemas, type StreamSchema } from '../stage-files.ts';
import { importBatch } from './batch-import.ts';

export class SyncSink {
  state: unknown = null;
  private readonly outDir: string;
  private readonly writers = new Map<string, JsonlWriter>();
  private readonly schemas = new Map<string, StreamSchema>();
  private readonly full = new Set<JsonlWriter>();
  private batches: BatchMessage[] = [];

  constructor(outDir: string) {
    this.outDir = outDir;
  }

  /** Fast-path handler for SingerParser (onRecordJson): a validated record's text. */
  readonly onRecordJson = (stream: string, json: string): void => {
    const writer = this.writer(stream);
    writer.add(json);
    if (writer.needsFlush) this.full.add(writer);
  };

  /** Message handler for SingerParser: synchronous, no allocation beyond the record's line. */
  readonly onMessage = (message: SingerMessage, line: string): void => {
    switch (message.type) {
      case 'RECORD': {
        const writer = this.writer(message.stream);
        writer.add(rawRecordJson(line, message) ?? JSON.stringify(message.record));
        if (writer.needsFlush) this.full.add(writer);
        return;
      }
      case 'SCHEMA': {
        const { schema, key_properties, bookmark_properties } = message;
        this.schemas.set(message.stream, { schema, key_properties, bookmark_properties });
        this.writer(message.stream); // a stream with a schema and no records still gets its (empty) file
        return;
      }
      case 'STATE':
        this.state = message.value;
        return;
      case 'BATCH':
        this.batches.push(message);
        return;
      case 'ACTIVATE_VERSION':
        return; // full-table versioning is a target concern; the export replays records as they are
    }
  };

  /** Writes out full buffers and imports pending BATCH files; awaits only under backpressure. */
  async settle(): Promise<void> {
    if (this.full.size > 0) {
      const full = [...this.full];
      this.full.clear();
      for (const writer of full) await writer.flush();
    }
    if (this.batches.length > 0) {
      const batches = this.batches;
      this.batches = [];
      for (const batch of batches) await importBatch(batch, this.writer(batch.stream));
    }
  }

  async close(): Promise<void> {
    await this.settle();
    for (const writer of this.writers.values()) await writer.close();
    await writeSchemas(this.outDir, this.schemas);
  }

  destroy(): void {
    for (const writer of this.writers.values()) writer.destroy();
  }

  perStream(): Record<string, number> {
    return Object.fromEntries([...this.writers].map(([stream, writer]) => [stream, writer.lines]));
  }

  recordCount(): number {
    let total = 0;
    for (const writer of this.writers.values()) total += writer.lines;
    return total;
  }

  private writer(stream: string): JsonlWriter {
    let writer = this.writers.get(stream);
    if (!writer) {
      writer = new JsonlWriter(join(this.outDir, streamFileName(stream)));
      this.writers.set(stream, writer);
    }
    return writer;
  }
}
