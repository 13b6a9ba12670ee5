// The environment's widget preferences (settings.preferences), with the defaults
// widgets rely on filled in.
import type { EnvScope } from '../auth/scope.ts';
import type { AppContext } from '../context.ts';
import { getEnvironment } from '../environments/store.ts';
import { updateEnvironmentSettings } from '../environments/service.ts';
import { BadRequestError, NotFoundError } from '../errors.ts';

export const DEFAULT_PRIMARY_COLOR = '#1e88e5';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Served by GET /{env_id}/preferences only (the CLI and admin answers show what is stored).
 * The widget shows its Run job, write-job, Full sync, Field map, Schedule and Job history
 * controls only when these flags are truthy (docs/widget-compat.md, GAP-5). Tapline serves
 * all of them, so they default to true; an environment turns one off by storing `false` (null or absent = true).
 */
export const WIDGET_FEATURE_FLAGS = ['jobsEnabled', 'writeJobsEnabled', 'fullSyncJobs', 'fieldMapsEnabled', 'scheduleEnabled', 'jobHistoryEnabled'] as const;

export function withDefaults(preferences: Record<string, unknown>): Record<string, unknown> {
  const ui = isObject(preferences.uiPreferences) ? preferences.uiPreferences : {};
  const primaryColor = typeof ui.primaryColor === 'string' && ui.primaryColor !== '' ? ui.primaryColor : DEFAULT_PRIMARY_COLOR;
  return { ...preferences, uiPreferences: { ...ui, primaryColor } };
}

/** What widgets get: the preferences with defaults and the feature flags filled in. */
export function withWidgetFlags(preferences: Record<string, unknown>): Record<string, unknown> {
  const flags = Object.fromEntries(WIDGET_FEATURE_FLAGS.map((flag) => [flag, preferences[flag] ?? true]));
  return { ...preferences, ...flags };
}

export async function preferencesOf(ctx: AppContext, scope: EnvScope): Promise<Record<string, unknown>> {
  const env = await getEnvironment(ctx.db.kysely, scope);
  if (!env) throw new NotFoundError(`Environment "${scope.envId}" not found`);
  return withDefaults(env.settings.preferences ?? {});
}

export async function widgetPreferencesOf(ctx: AppContext, scope: EnvScope): Promise<Record<string, unknown>> {
  return withWidgetFlags(await preferencesOf(ctx, scope));
}

/** Replaces the preferences object (the CLI and PATCH /admin/environments/{env_id} both end here). */
export async function setPreferences(ctx: AppContext, scope: EnvScope, preferences: unknown): Promise<Record<string, unknown>> {
  if (!isObject(preferences)) throw new BadRequestError('Preferences must be a JSON object');
  await updateEnvironmentSettings(ctx, scope, { preferences });
  return preferencesOf(ctx, scope);
}
