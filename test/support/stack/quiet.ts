import type { SandboxClient, SandboxEvent } from '@booksync/emulator/sandbox-client';
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import { routeEvent } from '../../../src/ingress/routing.js';

// What "nothing under way" means to the stacks' waitForQuiet: the emulator's event log read in full, the
// workflows its events route to, and whether any of them has an activity or a workflow task pending.

/** The emulator's event log, oldest first, every page. */
export async function allEvents(sandbox: SandboxClient): Promise<SandboxEvent[]> {
  const all: SandboxEvent[] = [];
  for await (const event of sandbox.allEvents()) all.push(event);
  return all;
}

/** The workflows the events route to, each once. */
export function routedWorkflows(log: readonly SandboxEvent[]): string[] {
  return [
    ...new Set(
      log.flatMap((e) => routeEvent(e.event.category, e.event.associated_object_id)?.workflowId ?? []),
    ),
  ];
}

/** How many of `ids` are running with an activity or a workflow task under way (never started: not busy). */
export async function busyWorkflows(client: Client, ids: readonly string[]): Promise<number> {
  let busy = 0;
  for (let i = 0; i < ids.length; i += 20) {
    const described = await Promise.all(
      ids.slice(i, i + 20).map((id) =>
        client.workflow
          .getHandle(id)
          .describe()
          .catch((error) => {
            if (error instanceof WorkflowNotFoundError) return null;
            throw error;
          }),
      ),
    );
    for (const d of described) {
      if (d?.status.name !== 'RUNNING') continue;
      if ((d.raw.pendingActivities ?? []).length > 0 || d.raw.pendingWorkflowTask) busy++;
    }
  }
  return busy;
}
