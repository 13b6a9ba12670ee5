// The environment of a connector process is built here and only here: an explicit
// allowlist of basics copied from a caller-supplied base (never process.env as a
// whole, so DATABASE_URL, TAPLINE_* and other secrets of ours never leak), plus the
// job's own environment_variables.

export type EnvSource = Readonly<Record<string, string | undefined>>;

/** Variables copied from the base environment when present (everything else is dropped). */
export const CONNECTOR_BASE_ENV_KEYS: readonly string[] = Object.freeze([
  'PATH', 'HOME', 'USER', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TMPDIR', 'TEMP', 'TMP',
  // Windows basics, harmless elsewhere.
  'SYSTEMROOT', 'WINDIR', 'COMSPEC', 'PATHEXT',
  // Python connectors installed in a pyenv / custom path.
  'PYTHONPATH', 'PYENV_ROOT', 'PYENV_VERSION',
  // TLS trust and egress proxies of a self-hosted deployment.
  'SSL_CERT_FILE', 'SSL_CERT_DIR', 'NODE_EXTRA_CA_CERTS',
  'HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'http_proxy', 'https_proxy', 'no_proxy',
]);

// Job variables come from tenants: they may not redirect which binaries run or
// inject code into the connector's runtime.
const RESERVED_JOB_VARS = new Set(['PATH', 'HOME', 'TMPDIR', 'NODE_OPTIONS', 'NODE_PATH', 'PYTHONSTARTUP', 'PYTHONPATH', 'BASH_ENV', 'ENV']);
const RESERVED_JOB_VAR_PREFIXES = ['LD_', 'DYLD_'];
const VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Environment for a connector: allowlisted basics from `baseEnv`, then `extra`
 * (the job's environment_variables and stage variables such as INPUT_DIR).
 * Values that are not strings are converted with String(); null/undefined are skipped.
 * Throws Error for an invalid or reserved variable name.
 */
export function connectorEnv(baseEnv: EnvSource, extra?: Readonly<Record<string, unknown>> | null): Record<string, string> {
  const env: Record<string, string> = Object.create(null);
  for (const key of CONNECTOR_BASE_ENV_KEYS) {
    const value = baseEnv[key];
    if (typeof value === 'string' && !value.includes('\0')) env[key] = value;
  }
  for (const [key, raw] of Object.entries(extra ?? {})) {
    if (raw === null || raw === undefined) continue;
    checkJobVarName(key);
    const value = typeof raw === 'string' ? raw : typeof raw === 'object' ? JSON.stringify(raw) : String(raw);
    if (value.includes('\0')) throw new Error(`environment variable ${key} contains a NUL character`);
    env[key] = value;
  }
  return { ...env };
}

function checkJobVarName(key: string): void {
  if (!VAR_NAME.test(key)) throw new Error(`invalid environment variable name: ${JSON.stringify(key)}`);
  const upper = key.toUpperCase();
  if (RESERVED_JOB_VARS.has(upper) || RESERVED_JOB_VAR_PREFIXES.some((p) => upper.startsWith(p))) {
    throw new Error(`environment variable ${key} may not be set by a job`);
  }
}
