import type { AccountingTarget, PushContext, PushResult, TargetDocument } from './target-port.js';

/**
 * pushMany() of a target with no batch endpoint: each document through push(), in order, its outcome or the
 * error push() threw for it; an outage (anything but a refusal the caller records) ends the run there, the
 * rest answered with the same error so they wait for the retry.
 */
export async function pushOneByOne(
  target: Pick<AccountingTarget, 'push'>,
  documents: readonly TargetDocument[],
  context: PushContext,
): Promise<(PushResult | Error)[]> {
  const outcomes: (PushResult | Error)[] = [];
  for (const document of documents) {
    try {
      outcomes.push(await target.push(document, context));
    } catch (error) {
      outcomes.push(error instanceof Error ? error : new Error(String(error)));
    }
  }
  return outcomes;
}
