// Structured logs with secrets redacted at the source: API keys, tenant tokens,
// credentials and webhook secrets never reach a log line.
import pino, { type Logger } from 'pino';
import type { LogLevel } from './config.ts';

export const REDACT_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  '*.config',
  '*.password',
  '*.secret',
  '*.token',
  '*.api_key',
  '*.client_secret',
  '*.access_token',
  '*.refresh_token',
  '*.private_key',
  '*.webhook_secret',
  'key',
];

const SENSITIVE_QUERY = /([?&](?:token|api_key|key)=)[^&]*/gi;

/** Removes secrets that travel in query strings (the tenant `token`). */
export function redactUrl(url: string): string {
  return url.replace(SENSITIVE_QUERY, '$1[Redacted]');
}

export function createLogger(level: LogLevel, destination?: pino.DestinationStream): Logger {
  return pino({
    level,
    redact: { paths: REDACT_PATHS, censor: '[Redacted]' },
    serializers: {
      req: (req: { method: string; url: string; id: string; headers: Record<string, unknown> }) => ({
        id: req.id,
        method: req.method,
        url: redactUrl(req.url),
        headers: { 'x-api-key': req.headers['x-api-key'] ? '[Redacted]' : undefined, origin: req.headers.origin },
      }),
    },
  }, destination);
}
