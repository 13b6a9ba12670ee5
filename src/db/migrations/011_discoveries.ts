// Discoveries outside jobs (GET …/linkedSources/discover): the state of a link's
// latest discovery lives on the link, so it goes with it on unlink and tenant deletion.
// `discover_token` names the run that owns the row (a newer run takes it over);
// `discover_heartbeat_at` moves while it runs, so a run whose process died is seen as lost.
import type { Kysely } from 'kysely';

type Db = Kysely<any>;

const COLUMNS = [
  ['discover_status', 'text'],
  ['discover_message', 'text'],
  ['discover_token', 'text'],
  ['discover_started_at', 'bigint'],
  ['discover_finished_at', 'bigint'],
  ['discover_heartbeat_at', 'bigint'],
] as const;

export const discoveriesMigration = {
  async up(db: Db): Promise<void> {
    // One column per statement: SQLite's ALTER TABLE adds one at a time.
    for (const [name, type] of COLUMNS) await db.schema.alterTable('links').addColumn(name, type).execute();
  },
  async down(db: Db): Promise<void> {
    for (const [name] of [...COLUMNS].reverse()) await db.schema.alterTable('links').dropColumn(name).execute();
  },
};
