// Link flags the widget shows: `isReconnecting` (set by a PATCH whose config carries
// it during an OAuth reconnect, cleared by linking again), kept apart from the tap's config.
import type { Kysely } from 'kysely';

export const linkFlagsMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('links').addColumn('is_reconnecting', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('links').dropColumn('is_reconnecting').execute();
  },
};
