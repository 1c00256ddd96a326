/** Steps run last pushed first, each even when one before it failed; the first failure is thrown at the end. */
export interface Closer {
  push(step: () => Promise<unknown> | unknown): void;
  close(): Promise<void>;
}

export function closer(): Closer {
  const steps: (() => Promise<unknown> | unknown)[] = [];
  return {
    push: (step) => {
      steps.push(step);
    },
    async close() {
      let failure: unknown;
      for (const step of steps.splice(0).reverse()) {
        try {
          await step();
        } catch (error) {
          failure ??= error;
        }
      }
      if (failure) throw failure;
    },
  };
}
