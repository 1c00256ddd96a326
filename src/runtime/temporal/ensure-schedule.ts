import { type Client, ScheduleAlreadyRunning, type ScheduleOptions } from '@temporalio/client';

/**
 * Creates a Schedule at start-up, or, when it exists, updates its spec, action and policies to the current
 * settings (a task queue or an interval may have changed); a paused state is kept. Idempotent.
 */
export async function ensureSchedule(
  client: Client,
  wanted: ScheduleOptions & { policies: NonNullable<ScheduleOptions['policies']> },
): Promise<{ scheduleId: string; created: boolean }> {
  const { scheduleId } = wanted;
  try {
    await client.schedule.create(wanted);
    return { scheduleId, created: true };
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
  }
  await client.schedule.getHandle(scheduleId).update((previous) => ({
    ...previous,
    spec: wanted.spec,
    action: wanted.action,
    policies: { ...previous.policies, ...wanted.policies },
  }));
  return { scheduleId, created: false };
}
