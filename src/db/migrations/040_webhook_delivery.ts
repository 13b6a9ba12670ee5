// Webhook delivery bookkeeping: when the first attempt started (the retry window
// counts from it, so a redelivery gets a fresh window), where the event goes,
// which delivery a redelivery copies, and an index for the per-endpoint ordering check.
import type { Kysely } from 'kysely';

type Db = Kysely<any>;

export const webhookDeliveryMigration = {
  async up(db: Db): Promise<void> {
    await db.schema.alterTable('webhook_events').addColumn('first_attempt_at', 'bigint').execute();
    await db.schema.alterTable('webhook_events')
      .addColumn('destination', 'text', (c) => c.notNull().defaultTo('environment')).execute();
    await db.schema.alterTable('webhook_events').addColumn('redelivery_of', 'bigint').execute();
    // "No earlier pending event for the same endpoint and ordering key" is asked for every candidate.
    await db.schema.createIndex('webhook_events_order').on('webhook_events')
      .columns(['ordering_key', 'url', 'status', 'id']).execute();
  },
  async down(db: Db): Promise<void> {
    await db.schema.dropIndex('webhook_events_order').ifExists().execute();
    for (const column of ['redelivery_of', 'destination', 'first_attempt_at']) {
      await db.schema.alterTable('webhook_events').dropColumn(column).execute();
    }
  },
};
