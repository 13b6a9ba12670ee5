import { assertSafeSegment } from './keys.ts';

function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

/**
 * The storage prefix of one job's files:
 * `{tenant}/flows/{flow_id}/jobs/{YYYY}/{MM}/{DD}/{HH}/{job_id}`, with the
 * date parts in UTC so every worker computes the same root whatever its zone.
 */
export function jobRoot(tenant: string, flowId: string, jobId: string, date: Date): string {
  assertSafeSegment(tenant, 'tenant');
  assertSafeSegment(flowId, 'flow id');
  assertSafeSegment(jobId, 'job id');
  if (!(date instanceof Date) || Number.isNaN(date.getTime())) throw new Error('job date is invalid');
  const yyyy = String(date.getUTCFullYear()).padStart(4, '0');
  const mm = pad2(date.getUTCMonth() + 1);
  const dd = pad2(date.getUTCDate());
  const hh = pad2(date.getUTCHours());
  return `${tenant}/flows/${flowId}/jobs/${yyyy}/${mm}/${dd}/${hh}/${jobId}`;
}
