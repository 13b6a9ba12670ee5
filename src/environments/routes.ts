// Administration API (Tapline extension): environments, API keys, signing key.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { envScope } from '../auth/plugin.ts';
import type { AppContext } from '../context.ts';
import * as S from './schemas.ts';
import * as service from './service.ts';

const tags = ['Administration (Tapline extension)'];

export const environmentRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post('/admin/environments', {
    config: { auth: 'operator' },
    schema: { tags, summary: 'Create an environment with an environment key and a public key', body: S.CreateEnvironmentBody, response: { 200: S.CreateEnvironmentReply } },
  }, async (req) => service.createEnvironment(ctx, req.body.env_id));

  app.get('/admin/environments', {
    config: { auth: 'operator' },
    schema: { tags, summary: 'List environments', response: { 200: Type.Object({ environments: Type.Array(Type.String()) }) } },
  }, async () => ({ environments: await service.listEnvironments(ctx) }));

  app.get('/admin/environments/:env_id', {
    config: { auth: 'env:read' },
    schema: { tags, summary: 'Read environment settings', params: S.EnvParams, response: { 200: S.EnvironmentView } },
  }, async (req) => service.describeEnvironment(ctx, envScope(req)));

  app.patch('/admin/environments/:env_id', {
    config: { auth: 'env:admin' },
    schema: { tags, summary: 'Update environment settings', params: S.EnvParams, body: S.EnvironmentPatchBody, response: { 200: S.EnvironmentView } },
  }, async (req) => service.updateEnvironmentSettings(ctx, envScope(req), req.body));

  app.delete('/admin/environments/:env_id', {
    config: { auth: 'operator' },
    schema: { tags, summary: 'Delete an environment and everything in it', params: S.EnvParams },
  }, async (req) => service.deleteEnvironment(ctx, envScope(req)));

  app.get('/admin/environments/:env_id/api-keys', {
    config: { auth: 'env:admin' },
    schema: { tags, summary: 'List API keys (never the keys themselves)', params: S.EnvParams, response: { 200: Type.Object({ api_keys: Type.Array(S.ApiKeyView) }) } },
  }, async (req) => ({ api_keys: await service.listKeys(ctx, envScope(req)) }));

  app.post('/admin/environments/:env_id/api-keys', {
    config: { auth: 'env:admin' },
    schema: { tags, summary: 'Create an API key (shown once)', params: S.EnvParams, body: S.CreateKeyBody, response: { 200: S.CreatedKeyView } },
  }, async (req) => service.createApiKey(ctx, envScope(req), req.body));

  app.delete('/admin/environments/:env_id/api-keys/:id', {
    config: { auth: 'env:admin' },
    schema: { tags, summary: 'Revoke an API key', params: S.KeyParams, response: { 200: S.ApiKeyView } },
  }, async (req) => service.revokeKey(ctx, envScope(req), req.params.id));

  app.post('/admin/environments/:env_id/signing-key', {
    config: { auth: 'env:admin' },
    schema: { tags, summary: 'Generate the tenant-token signing key pair (private key shown once)', params: S.EnvParams, response: { 200: S.SigningKeyReply } },
  }, async (req) => service.generateSigningKey(ctx, envScope(req)));
};
