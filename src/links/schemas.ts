import { Type } from 'typebox';
import { EnvId, FlowId, TenantId } from '../catalog/schemas.ts';

export const TenantParams = Type.Object({ env_id: EnvId, flow_id: FlowId, tenant: TenantId });

const AnyObject = Type.Record(Type.String(), Type.Unknown());
const Name = Type.String({ minLength: 1, maxLength: 128 });

export const LinkSchedule = Type.Object({
  schedule_expression: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  state: Type.Optional(Type.String()),
});

export function listQuery(nameParam: string) {
  return Type.Object({
    token: Type.Optional(Type.String({ description: 'Tenant JWT (with a public key); required with config=true' })),
    config: Type.Optional(Type.Boolean({ description: 'Unmasked config when the caller may see secrets (a public key needs the tenant token); masked otherwise' })),
    catalog: Type.Optional(Type.Boolean({ description: 'Include the last discovered catalog' })),
    [nameParam]: Type.Optional(Name),
    login_state: Type.Optional(Type.String({ description: 'Accepted for compatibility; no effect' })),
  });
}

export function linkBody(outer: string) {
  return Type.Object({
    [outer]: AnyObject,
    schedule: Type.Optional(LinkSchedule),
    field_map: Type.Optional(Type.Union([AnyObject, Type.Null()])),
  });
}

export function patchBody(nameParam: string) {
  return Type.Object({
    [nameParam]: Name,
    field_map: Type.Optional(Type.Union([AnyObject, Type.Null()])),
    config: Type.Optional(Type.Union([AnyObject, Type.Null()])),
    delete_fields: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { maxItems: 1000 })),
  });
}

export function nameQuery(nameParam: string, required: boolean) {
  return Type.Object({
    [nameParam]: required ? Name : Type.Optional(Name),
    token: Type.Optional(Type.String()),
  });
}
