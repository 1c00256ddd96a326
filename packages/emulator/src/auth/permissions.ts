import { PERMISSIONS, type Permission } from '@booksync/service-contract/schemas/index';

export type { Permission };

export function isPermission(value: unknown): value is Permission {
  return typeof value === 'string' && (PERMISSIONS as readonly string[]).includes(value);
}
