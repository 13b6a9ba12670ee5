// CLI commands over the same services the HTTP admin API uses.
import type { Command } from 'commander';
import { systemEnvScope } from '../auth/scope.ts';
import type { AppContext } from '../context.ts';
import * as environments from '../environments/service.ts';

export type OpenContext = () => Promise<AppContext>;

export function print(value: unknown): void {
  console.log(JSON.stringify(value, null, 2));
}

/** Runs `action` with a context and always closes the database. */
export async function withContext<T>(open: OpenContext, action: (ctx: AppContext) => Promise<T>): Promise<T> {
  const ctx = await open();
  try {
    return await action(ctx);
  } finally {
    await ctx.db.close();
  }
}

function parseBool(value: string): boolean {
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new Error(`expected true or false, got "${value}"`);
}

export function registerEnvCommands(program: Command, open: OpenContext): void {
  const env = program.command('env').description('manage environments');
  env.command('create <env_id>').description('create an environment; prints its keys once')
    .action((envId: string) => withContext(open, async (ctx) => print(await environments.createEnvironment(ctx, envId))));
  env.command('list').description('list environments')
    .action(() => withContext(open, async (ctx) => print(await environments.listEnvironments(ctx))));
  env.command('show <env_id>').description('show an environment\'s settings')
    .action((envId: string) => withContext(open, async (ctx) => print(await environments.describeEnvironment(ctx, systemEnvScope(envId)))));
  env.command('delete <env_id>').description('delete an environment and everything in it')
    .action((envId: string) => withContext(open, async (ctx) => print(await environments.deleteEnvironment(ctx, systemEnvScope(envId)))));
  env.command('set <env_id>').description('change environment settings')
    .option('--require-tenant-jwt <bool>', 'require tenant tokens with public keys', parseBool)
    .option('--preferences <json>', 'widget preferences as JSON', (v: string) => JSON.parse(v))
    .option('--webhook-url <url>', 'lifecycle webhook URL ("" to remove)')
    .option('--webhook-secret <secret>', 'webhook signing secret')
    .option('--cors-origins <list>', 'comma-separated allowed browser origins', (v: string) => v.split(',').filter(Boolean))
    .action((envId: string, o: Record<string, unknown>) => withContext(open, async (ctx) => print(await environments.updateEnvironmentSettings(ctx, systemEnvScope(envId), {
      require_tenant_jwt: o.requireTenantJwt as boolean | undefined,
      preferences: o.preferences as Record<string, unknown> | undefined,
      webhook_url: o.webhookUrl === undefined ? undefined : (o.webhookUrl as string) || null,
      webhook_secret: o.webhookSecret as string | undefined,
      cors_origins: o.corsOrigins as string[] | undefined,
    }))));
}

export function registerKeyCommands(program: Command, open: OpenContext): void {
  const keys = program.command('keys').description('manage API keys');
  keys.command('create').description('create an API key; prints it once')
    .requiredOption('--env <env_id>', 'environment')
    .requiredOption('--type <type>', 'environment | personal | public')
    .option('--role <role>', 'admin | developer | viewer (personal keys)')
    .option('--user <name>', 'user name (personal keys)')
    .action((o: { env: string; type: 'environment' | 'personal' | 'public'; role?: 'admin' | 'developer' | 'viewer'; user?: string }) =>
      withContext(open, async (ctx) => print(await environments.createApiKey(ctx, systemEnvScope(o.env), { type: o.type, role: o.role, user: o.user }))));
  keys.command('list').requiredOption('--env <env_id>', 'environment')
    .action((o: { env: string }) => withContext(open, async (ctx) => print(await environments.listKeys(ctx, systemEnvScope(o.env)))));
  keys.command('revoke <key_id>').requiredOption('--env <env_id>', 'environment')
    .action((id: string, o: { env: string }) => withContext(open, async (ctx) => print(await environments.revokeKey(ctx, systemEnvScope(o.env), id))));
  program.command('signing-key').description('generate an environment\'s tenant-token signing key (private key printed once)')
    .requiredOption('--env <env_id>', 'environment')
    .action((o: { env: string }) => withContext(open, async (ctx) => print(await environments.generateSigningKey(ctx, systemEnvScope(o.env)))));
}
