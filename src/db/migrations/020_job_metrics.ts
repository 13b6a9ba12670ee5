// Records per stream of a job (JSON {stream: n}), moving during the sync with
// processed_rows; job.status_changed events carry it as metrics.recordCount.
import type { Kysely } from 'kysely';

export const jobMetricsMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('jobs').addColumn('record_counts', 'text').execute();
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('jobs').dropColumn('record_counts').execute();
  },
};
