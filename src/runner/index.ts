// Public API of the runner: what the job engine uses. Nothing here touches a database.
export { StageError, SingerParseError, type StageName, type StageFailureKind } from './errors.ts';
export { spawnConnector, type SpawnSpec, type ConnectorProcess, type ExitResult } from './spawn.ts';
export { connectorEnv, CONNECTOR_BASE_ENV_KEYS, type EnvSource } from './env.ts';
export { resolveCommand, type RunSpec, type ConnectorCommand } from './resolve-command.ts';
export { SingerParser, parseSingerLine, rawRecordJson, type SingerMessage } from './singer.ts';
export { createPrivateDir, withPrivateDir, type PrivateDir } from './private-dir.ts';
export { SCHEMAS_FILE, streamFileName, listStreamFiles, readSchemas, type StreamSchema } from './stage-files.ts';
export { runDiscover, type DiscoverOptions } from './stages/discover.ts';
export { runSync, type SyncOptions, type SyncResult } from './stages/sync.ts';
export { runEtl, type EtlOptions, type EtlResult, type EtlJobInfo } from './stages/etl.ts';
export { runExport, type ExportOptions, type ExportResult } from './stages/export.ts';
export { selectCatalog, type SingerCatalog, type CatalogStream, type SelectedTables } from './stages/select-catalog.ts';
export { mappingFor, type FieldMap, type FieldMapEntry } from './stages/field-map.ts';
export type { ProcessOptions, ConnectorStageOptions } from './stages/common.ts';
