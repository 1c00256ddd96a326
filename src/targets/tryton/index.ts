import type { TrytonTargetOptions } from './session.js';
import { TrytonTarget } from './tryton-target.js';

export type { TrytonTargetOptions } from './session.js';
export { TrytonTarget } from './tryton-target.js';

export function createTrytonTarget(options: TrytonTargetOptions): TrytonTarget {
  return new TrytonTarget(options);
}
