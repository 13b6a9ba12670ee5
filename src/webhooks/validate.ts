// Checks for webhook settings when they are accepted (environment settings, a
// job's override_lifecycle_webhook), so a bad URL or secret is a 400 at once
// rather than a failed delivery later. Sends are checked again (ssrf.ts).
import type { AppContext } from '../context.ts';
import { BadRequestError } from '../errors.ts';
import { WEBHOOK_EVENT_TYPES } from './outbox.ts';
import { isValidWebhookSecret } from './sign.ts';
import { checkWebhookUrl, type ResolveHost } from './ssrf.ts';

/**
 * Throws BadRequestError unless `url` is an http(s) URL without credentials whose
 * host does not resolve to a refused address (unless TAPLINE_WEBHOOK_ALLOW_PRIVATE).
 * A host that does not resolve (yet) is accepted: deliveries retry DNS failures.
 */
export async function assertWebhookUrlAllowed(ctx: AppContext, url: string, resolve?: ResolveHost): Promise<void> {
  const check = await checkWebhookUrl(url, { allowPrivate: ctx.config.webhookAllowPrivate, resolve });
  if (check.ok || check.reason === 'unresolvable') return;
  throw new BadRequestError(`Webhook URL refused: ${check.message}`);
}

/** Throws BadRequestError for an empty secret or a `whsec_` secret that is not strict base64. */
export function assertWebhookSecret(secret: string): void {
  if (!isValidWebhookSecret(secret)) {
    throw new BadRequestError('Webhook secret must be non-empty; a "whsec_" secret must continue with padded base64');
  }
}

const GROUPS = new Set(WEBHOOK_EVENT_TYPES.map((t) => `${t.slice(0, t.indexOf('.'))}.*`));

/** Throws BadRequestError for a `webhook_events` entry that names no event type. */
export function assertWebhookEventFilter(filter: readonly string[]): void {
  const known = new Set<string>([...WEBHOOK_EVENT_TYPES, ...GROUPS, '*']);
  const unknown = filter.filter((entry) => !known.has(entry));
  if (unknown.length > 0) {
    throw new BadRequestError(`Unknown webhook event type(s): ${unknown.join(', ')}; expected ${[...known].join(', ')}`);
  }
}

/** Everything a settings change or an override carries, checked in one call. */
export async function assertWebhookSettings(
  ctx: AppContext, settings: { webhook_url?: string | null; webhook_secret?: string | null; webhook_events?: readonly string[] | null },
): Promise<void> {
  if (settings.webhook_url) await assertWebhookUrlAllowed(ctx, settings.webhook_url);
  if (settings.webhook_secret) assertWebhookSecret(settings.webhook_secret);
  if (settings.webhook_events) assertWebhookEventFilter(settings.webhook_events);
}
