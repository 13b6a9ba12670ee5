// Ordered migrations, in code (no file scanning) so they ship inside the package.
import type { Migration } from 'kysely/migration';
import type { DialectName } from '../connect.ts';
import { initialMigration } from './001_initial.ts';
import { webhookDeliveryMigration } from './040_webhook_delivery.ts';
import { scheduleInheritedMigration } from './030_schedule_inherited.ts';

export function allMigrations(dialect: DialectName): Record<string, Migration> {
  return {
    '001_initial': initialMigration(dialect),
    '040_webhook_delivery': webhookDeliveryMigration,
    '030_schedule_inherited': scheduleInheritedMigration,
  };
}
