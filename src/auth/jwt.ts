// Tenant JWTs: RS256 only, verified with the environment's stored public key.
import crypto from 'node:crypto';
import { errors as joseErrors, jwtVerify } from 'jose';

export interface SigningKeyPair {
  /** Base64 of the PKCS#8 PEM, the form clients decode before signing. Shown once, never stored. */
  readonly privateKeyBase64: string;
  readonly publicKeyPem: string;
}

export function generateSigningKeyPair(): SigningKeyPair {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const privatePem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  return {
    privateKeyBase64: Buffer.from(privatePem, 'utf8').toString('base64'),
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

export type TokenCheck = { ok: true } | { ok: false; reason: string };

export interface VerifyOptions {
  readonly token: string;
  readonly publicKeyPem: string;
  readonly tenant: string;
  readonly clockSkewSeconds: number;
  readonly nowSeconds?: number;
}

function describeJoseError(error: unknown): string {
  if (error instanceof joseErrors.JWTExpired) return 'token has expired';
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return 'token algorithm is not allowed (RS256 only)';
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return 'token signature does not verify';
  if (error instanceof joseErrors.JWTClaimValidationFailed) return `token claim "${error.claim}" is invalid`;
  if (error instanceof joseErrors.JWTInvalid || error instanceof joseErrors.JWSInvalid) return 'token is malformed';
  return 'token is invalid';
}

export async function verifyTenantToken(opts: VerifyOptions): Promise<TokenCheck> {
  const now = opts.nowSeconds ?? Math.floor(Date.now() / 1000);
  try {
    const key = crypto.createPublicKey(opts.publicKeyPem);
    const { payload } = await jwtVerify(opts.token, key, {
      algorithms: ['RS256'],
      requiredClaims: ['exp', 'sub'],
      clockTolerance: opts.clockSkewSeconds,
      currentDate: new Date(now * 1000),
    });
    if (payload.sub !== opts.tenant) return { ok: false, reason: 'token subject does not match the tenant' };
    if (typeof payload.iat === 'number' && payload.iat > now + opts.clockSkewSeconds) {
      return { ok: false, reason: 'token is issued in the future' };
    }
    return { ok: true };
  } catch (error) {
    return { ok: false, reason: describeJoseError(error) };
  }
}
