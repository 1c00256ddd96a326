import { condition, defineSignal, proxyActivities, setHandler } from '@temporalio/workflow';

// The bare pipeline's workflow (bench only; bundled on its own by ./worker.ts, never part of booksync's bundle): the
// shape of booksync's payment workflow for a card payment, with nothing of booksync in it. Started by
// signalWithStart with one event; first workflow task: the signal is taken and the activity scheduled;
// the activity writes one row; second workflow task: the workflow completes. Two workflow tasks, one
// activity, as a card payment's history has them (bench/bare-pipeline.ts counts both histories).

export interface BareEvent {
  eventId: string;
}

export interface BareActivities {
  /** One SQLite write, timed at the write: the pipeline's "done" (booksync's is the ledger's createdAt). */
  record(paymentId: string, eventIds: string[]): Promise<void>;
}

export const bareEventSignal = defineSignal<[BareEvent]>('bareServiceEvent');

export async function barePayment(input: { paymentId: string }): Promise<void> {
  const { record } = proxyActivities<BareActivities>({ startToCloseTimeout: '30s' });
  const pending: string[] = [];
  setHandler(bareEventSignal, (event) => {
    pending.push(event.eventId);
  });
  await condition(() => pending.length > 0);
  await record(input.paymentId, pending.splice(0));
}
