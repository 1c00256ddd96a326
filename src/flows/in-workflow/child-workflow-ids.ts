import { patched } from '@temporalio/workflow';
import { legacyWorkflowIdFor, type WorkflowKind, workflowIdFor } from '../../workflow-safe/workflow-ids.js';

/**
 * The id of a child (or external) workflow this workflow starts. Histories recorded before ids were made
 * injective started escaped ids under their unescaped form, so replaying one must build that form again;
 * `patched()` is consulted only for an id the escape changes, which leaves every other history untouched.
 */
export function childWorkflowIdFor(kind: WorkflowKind, id: string): string {
  const current = workflowIdFor(kind, id);
  const legacy = legacyWorkflowIdFor(kind, id);
  if (current === legacy) return current;
  return patched('injective-workflow-ids') ? current : legacy;
}
