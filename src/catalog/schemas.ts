import { Type } from 'typebox';

export const EnvId = Type.String({ minLength: 1, maxLength: 64 });
export const FlowId = Type.String({ minLength: 1, maxLength: 64 });
/** Tenant ids: 1-128 characters, no whitespace or "/"; a subtenant is written parent_n. */
export const TenantId = Type.String({ minLength: 1, maxLength: 128, pattern: '^[^\\s/]+$' });

export const EnvParams = Type.Object({ env_id: EnvId });
export const EnvFlowParams = Type.Object({ env_id: EnvId, flow_id: FlowId });

/** Operator input (catalog entries, flows, documents): validated by the service for precise messages. */
export const AnyObject = Type.Record(Type.String(), Type.Unknown());
export const AnyArray = Type.Array(AnyObject);

export const LinkedFlowsQuery = Type.Object({
  user_id: TenantId,
  token: Type.Optional(Type.String()),
});
