// Ordered migrations, in code (no file scanning) so they ship inside the package.
import type { Migration } from 'kysely/migration';
import type { DialectName } from '../connect.ts';
import { initialMigration } from './001_initial.ts';
import { discoveriesMigration } from './011_discoveries.ts';
import { linkFlagsMigration } from './012_link_flags.ts';
import { jobMetricsMigration } from './020_job_metrics.ts';
import { webhookDeliveryMigration } from './040_webhook_delivery.ts';
import { scheduleInheritedMigration } from './030_schedule_inherited.ts';

export function allMigrations(dialect: DialectName): Record<string, Migration> {
  return {
    '001_initial': initialMigration(dialect),
    '011_discoveries': discoveriesMigration,
    '012_link_flags': linkFlagsMigration,
    '020_job_metrics': jobMetricsMigration,
    '040_webhook_delivery': webhookDeliveryMigration,
    '030_schedule_inherited': scheduleInheritedMigration,
  };
}
