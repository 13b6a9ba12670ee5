// Schedules copied from the flow's `default` tenant (the cascade) are marked, so a
// later `apply_to_existing=true` refreshes those copies but never a tenant's own schedule.
import type { Kysely } from 'kysely';

export const scheduleInheritedMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('schedules')
      .addColumn('inherited', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('schedules').dropColumn('inherited').execute();
  },
};
