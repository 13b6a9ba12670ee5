import { describe, expect, it } from 'vitest';
import { parseCatalogEntry } from '../catalog/validate.ts';
import { fieldMapHash, fieldMapProblems, parseFieldMap } from './field-map.ts';
import { isSecretKey, keepMaskedSecrets, MASK, maskConfig } from './secrets.ts';
import { identityChanged, missingParams, parentTenant, parseLinkBody, sameTenantFamily } from './validate.ts';

describe('field maps', () => {
  it('accepts {stream: {name, selected}} and null, names every problem otherwise', () => {
    expect(parseFieldMap({ a: { name: 'A', selected: ['x'] } })).toEqual({ a: { name: 'A', selected: ['x'] } });
    expect(parseFieldMap(null)).toBeNull();
    expect(fieldMapProblems([])).toEqual(['field_map must be an object or null']);
    expect(fieldMapProblems({ a: { name: '', selected: [1] }, b: 3 })).toEqual([
      'field_map["a"].name must be a non-empty string', 'field_map["a"].selected must be an array of strings',
      'field_map["b"] must be an object with "name" and "selected"',
    ]);
  });

  it('hashes independently of key and field order', () => {
    expect(fieldMapHash({ a: { name: 'A', selected: ['x', 'y'] }, b: { name: 'B', selected: [] } }))
      .toBe(fieldMapHash({ b: { name: 'B', selected: [] }, a: { name: 'A', selected: ['y', 'x'] } }));
    expect(fieldMapHash({ a: { name: 'A', selected: [] } })).not.toBe(fieldMapHash({ a: { name: 'A2', selected: [] } }));
    expect(fieldMapHash(null)).toBe('none');
  });
});

describe('secrets', () => {
  it('recognises secret key names', () => {
    for (const k of ['password', 'client_secret', 'refresh_token', 'access_token', 'api_key', 'apiKey', 'token', 'private_key', 'aws_secret_access_key', 'credentials_json']) expect(isSecretKey(k), k).toBe(true);
    for (const k of ['token_url', 'auth_url', 'subdomain', 'start_date', 'client_id', 'username']) expect(isSecretKey(k), k).toBe(false);
  });

  it('masks declared and named secrets at any depth, keeping empty values', () => {
    const masked = maskConfig({ pin: '1234', user: 'ann', nested: { password: 'p', list: [{ token: 't' }] }, api_key: '' }, new Set(['pin']));
    expect(masked).toEqual({ pin: MASK, user: 'ann', nested: { password: MASK, list: [{ token: MASK }] }, api_key: '' });
  });

  it('keeps a stored secret when the mask is sent back', () => {
    expect(keepMaskedSecrets({ password: MASK, user: 'b' }, { password: 'old', user: 'a' })).toEqual({ password: 'old', user: 'b' });
    expect(keepMaskedSecrets({ password: MASK }, {})).toEqual({});
    expect(keepMaskedSecrets({ note: MASK }, { note: 'x' })).toEqual({ note: MASK });
  });
});

describe('link validation', () => {
  const { entry } = parseCatalogEntry('source', {
    tap: 't', run: { builtin: 'x' }, config: { region: 'eu' },
    connect_ui_params: { key: { label: 'K', description: '' }, region: { label: 'R', description: '' }, opt: { label: 'O', description: '', required: false } },
  });

  it('lists required params missing from defaults + config', () => {
    expect(missingParams(entry, {})).toEqual(['key']);
    expect(missingParams(entry, { key: '' })).toEqual(['key']);
    expect(missingParams(entry, { key: 'k' })).toEqual([]);
  });

  it('notices identity changes (default keys, or the entry\'s own)', () => {
    expect(identityChanged(entry, { subdomain: 'a', key: '1' }, { subdomain: 'a', key: '2' })).toBe(false);
    expect(identityChanged(entry, { subdomain: 'a' }, { subdomain: 'b' })).toBe(true);
    expect(identityChanged({ ...entry, identity_keys: ['key'] }, { key: '1' }, { key: '2' })).toBe(true);
  });

  it('parses link bodies, ignoring extra members', () => {
    expect(parseLinkBody('source', { source: { tap: 't', label: 'x', config: { a: 1 } }, field_map: null }))
      .toEqual({ name: 't', config: { a: 1 }, symlink: undefined, fieldMap: null });
    expect(parseLinkBody('connector', { connector: { symlink: { id: 'f', type: 'source', entity: 'e' } } }).symlink)
      .toEqual({ flowId: 'f', tenant: undefined, entity: 'e', kind: 'source' });
    expect(parseLinkBody('source', { source: { tap: 't', symlink: { id: 'f', type: null } } }).symlink?.kind).toBeUndefined();
    expect(() => parseLinkBody('source', { source: { tap: 't', symlink: { id: 'f', tenant: 'a b' } } })).toThrow(/tenant id/);
    expect(() => parseLinkBody('target', { target: {} })).toThrow(/"target.target" is required/);
  });

  it('knows tenant families', () => {
    expect(parentTenant('1414_1')).toBe('1414');
    expect(parentTenant('acme_corp')).toBe('acme_corp');
    expect(sameTenantFamily('1414_1', '1414_2')).toBe(true);
    expect(sameTenantFamily('1414', '1414_3')).toBe(true);
    expect(sameTenantFamily('acme_corp', 'acme_inc')).toBe(false);
  });
});
