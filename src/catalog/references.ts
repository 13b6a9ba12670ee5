// A flow may only offer and export to entries that exist in the catalog, with the
// right abilities. Pure: given a lookup of the catalog, lists the problems.
import type { CatalogEntry, CatalogKind, FlowSpec } from './types.ts';

export type EntryLookup = (kind: CatalogKind, name: string) => CatalogEntry | undefined;

export function flowReferenceProblems(flow: FlowSpec, lookup: EntryLookup): string[] {
  const problems: string[] = [];
  const need = (kind: CatalogKind, name: string, what: string) => {
    const entry = lookup(kind, name);
    if (!entry) problems.push(`flow "${flow.id}": ${what} "${name}" is not in the catalog`);
    return entry;
  };
  for (const tap of flow.taps) need('source', tap, 'source (tap)');
  for (const target of flow.targets) need('target', target, 'target');
  for (const id of flow.connectors) need('connector', id, 'connector');
  if (flow.export) need('target', flow.export.name, 'export target');
  if (flow.readExport) {
    const entry = need('connector', flow.readExport.name, 'read export connector');
    if (entry && !entry.write) problems.push(`flow "${flow.id}": export.read connector "${entry.name}" cannot write data (no "write" run spec)`);
  }
  if (flow.writeSource) {
    const entry = need('connector', flow.writeSource.name, 'write source connector');
    if (entry && !entry.read) problems.push(`flow "${flow.id}": export.write connector "${entry.name}" cannot read data (no "read" run spec)`);
  }
  return problems;
}

/** Names of the flows that use a catalog entry (it cannot be removed while they do). */
export function flowsUsing(flows: FlowSpec[], kind: CatalogKind, name: string): string[] {
  return flows.filter((flow) => {
    if (kind === 'source') return flow.taps.includes(name);
    if (kind === 'target') return flow.targets.includes(name) || flow.export?.name === name;
    return flow.connectors.includes(name) || flow.readExport?.name === name || flow.writeSource?.name === name;
  }).map((flow) => flow.id);
}
