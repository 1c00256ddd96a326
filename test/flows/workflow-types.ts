import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import * as workflows from '../../src/flows/workflows.js';
import { fixturesDir } from '../support/temporal.js';

/** Every workflow type the worker registers (src/flows/workflows.ts). */
export const workflowTypes: readonly string[] = Object.keys(workflows).sort();

/** The recorded histories: file name and the workflow type its first event started. */
export function recordedHistories(): { file: string; type: string }[] {
  const dir = path.join(fixturesDir, 'histories');
  return readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .map((file) => {
      const history = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as {
        events: { workflowExecutionStartedEventAttributes?: { workflowType?: { name?: string } } }[];
      };
      const type = history.events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name ?? '';
      return { file, type };
    });
}

/** The workflow types at least one recorded history is of. */
export function recordedWorkflowTypes(): string[] {
  return [...new Set(recordedHistories().map((h) => h.type))].sort();
}
