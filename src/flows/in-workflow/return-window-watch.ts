import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { ParentClosePolicy, startChild } from '@temporalio/workflow';
import { payment } from '../payment/workflow.js';
import { childWorkflowIdFor } from './child-workflow-ids.js';

/**
 * Starts the payment workflow of each payment a reconciliation or a backfill booked that can still change
 * (an ACH payment in its 60-day return window), so it is watched now rather than at its next event.
 * Abandoned children: they outlive the run that started them. One already running watches it already.
 */
export async function watchReturnWindows(paymentIds: readonly string[]): Promise<void> {
  for (const paymentId of paymentIds) {
    try {
      await startChild(payment, {
        workflowId: childWorkflowIdFor('payment', paymentId),
        args: [{ paymentId, syncOnStart: true }],
        parentClosePolicy: ParentClosePolicy.ABANDON,
      });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  }
}
