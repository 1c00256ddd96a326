import { ApplicationFailure } from '@temporalio/common';
import { type BackfillPhase, backfillPhases } from './contract.js';

// Where a backfill goes on: `phase:page`, or `phase:page:notBefore` when the next page must wait to keep the
// rate (epoch ms): a wait longer than a step may sleep is handed on in the token the workflow carries, never
// slept past the activity's timeout. (The workflow reads only the phase, before the first colon.)

export function parsePageToken(token: string | null): {
  phase: BackfillPhase;
  page: number;
  notBefore: number | null;
} {
  if (token === null) return { phase: backfillPhases[0], page: 1, notBefore: null };
  const [phase, page, notBefore] = token.split(':');
  if (
    !backfillPhases.includes(phase as BackfillPhase) ||
    !Number.isSafeInteger(Number(page)) ||
    Number(page) < 1 ||
    (notBefore !== undefined && !Number.isSafeInteger(Number(notBefore)))
  ) {
    throw ApplicationFailure.nonRetryable(`bad backfill page token ${token}`, 'BadPageToken');
  }
  return {
    phase: phase as BackfillPhase,
    page: Number(page),
    notBefore: notBefore === undefined ? null : Number(notBefore),
  };
}

/** The token without its wait, or with one. */
export function pageTokenAt(token: string | null, notBefore: number | null): string | null {
  if (token === null) return null;
  const { phase, page } = parsePageToken(token);
  return notBefore === null ? `${phase}:${page}` : `${phase}:${page}:${notBefore}`;
}

/** The next page of the phase, or the first of the next phase, or null when every phase is done. */
export function nextPageToken(phase: BackfillPhase, page: number, more: boolean): string | null {
  if (more) return `${phase}:${page + 1}`;
  const next = backfillPhases[backfillPhases.indexOf(phase) + 1];
  return next ? `${next}:1` : null;
}
