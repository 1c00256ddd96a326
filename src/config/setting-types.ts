import { z } from 'zod';

// The kinds of value settings take, shared by src/config/settings.ts and the settings of its parts.

export const port = z.coerce.number().int().min(0).max(65_535);
export const flag = (fallback: 'true' | 'false') =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'])
    .default(fallback)
    .transform((value) => value === 'true' || value === '1' || value === 'yes');
export const csv = z.string().transform((value) =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean),
);
export const httpUrl = z.url({ protocol: /^https?$/ });
export const duration = z.string().regex(/^\d+(ms|s|m|h|d)$/, 'a duration such as 30s, 15m, 1h or 1d');

const unitMs = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** A `duration` setting (30s, 15m, 1h...) in milliseconds. */
export function durationMs(value: string): number {
  const match = /^(\d+)(ms|s|m|h|d)$/.exec(value);
  if (!match) throw new Error(`not a duration such as 30s, 15m, 1h or 1d: ${value}`);
  return Number(match[1]) * unitMs[match[2] as keyof typeof unitMs];
}
