import { TrytonTarget, type TrytonTargetOptions } from './tryton-target.js';

export type { TrytonTargetOptions } from './tryton-target.js';
export { TrytonTarget } from './tryton-target.js';

export function createTrytonTarget(options: TrytonTargetOptions): TrytonTarget {
  return new TrytonTarget(options);
}
