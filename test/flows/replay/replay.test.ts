import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { fixturesDir, workflowBundle } from '../../support/temporal.js';
import { recordedWorkflowTypes, workflowTypes } from '../workflow-types.js';

// Recorded histories of real runs (BOOKSYNC_RECORD_HISTORIES=1 npm test rewrites them). Replaying them
// against today's workflow code fails on any non-deterministic change, before it reaches running workflows.
const historiesDir = path.join(fixturesDir, 'histories');
const histories = readdirSync(historiesDir).filter((file) => file.endsWith('.json'));

describe('workflow replay of recorded histories', () => {
  it('has recorded histories to replay', () => {
    expect(histories.length).toBeGreaterThan(0);
  });

  // Replay as a rule: a workflow type with no recorded history could change in a way running workflows
  // cannot replay and nothing here would say so. test/flows/replay/record-histories.test.ts records them.
  it('has a recorded history of every workflow type the worker registers', () => {
    const missing = workflowTypes.filter((type) => !recordedWorkflowTypes().includes(type));
    expect(
      missing,
      'record them: BOOKSYNC_RECORD_HISTORIES=1 npm test -- test/flows/replay/record-histories.test.ts',
    ).toEqual([]);
  });

  it.each(histories)('replays %s deterministically', async (file) => {
    const history = JSON.parse(readFileSync(path.join(historiesDir, file), 'utf8'));
    const workflowId = file.replace(/\.json$/, '');
    await expect(
      Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, history, workflowId),
    ).resolves.toBeUndefined();
  });
});
