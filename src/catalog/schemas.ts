import { Type } from 'typebox';

export const EnvId = Type.String({ minLength: 1, maxLength: 64 });
export const FlowId = Type.String({ minLength: 1, maxLength: 64 });
/**
 * Tenant ids: 1-128 characters without whitespace, control characters, "/" or "\\",
 * and not "." or ".." (tenant ids name storage folders); a subtenant is written parent_n.
 */
export const TENANT_ID_PATTERN = String.raw`^(?!\.\.?$)[^\s/\\\x00-\x1f]+$`;
export const TenantId = Type.String({ minLength: 1, maxLength: 128, pattern: TENANT_ID_PATTERN });

export const EnvParams = Type.Object({ env_id: EnvId });
export const EnvFlowParams = Type.Object({ env_id: EnvId, flow_id: FlowId });

/** Operator input (catalog entries, flows, documents): validated by the service for precise messages. */
export const AnyObject = Type.Record(Type.String(), Type.Unknown());
export const AnyArray = Type.Array(AnyObject);

export const LinkedFlowsQuery = Type.Object({
  user_id: TenantId,
  token: Type.Optional(Type.String()),
});
