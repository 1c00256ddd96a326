import { afterAll, afterEach, beforeAll, expect } from 'vitest';

/** What a vendor double (QuickBooks, Xero) offers a test file: a server, and the requests that broke its rules. */
interface VendorDouble {
  start(): Promise<unknown>;
  stop(): Promise<void>;
  readonly violations: readonly string[];
  calm(): void;
}

/**
 * The double serves the whole test file: started before its tests, stopped after them, and after each test
 * no request broke the vendor's rules the double enforces (a test passing by a request the vendor refuses
 * proves nothing). `calm`: first undoes what a test set up at the double (its faults, throttling: calm()).
 */
export function doubleForFile<D extends VendorDouble>(double: D, options: { calm?: boolean } = {}): D {
  beforeAll(async () => {
    await double.start();
  });
  afterAll(async () => {
    await double.stop();
  });
  afterEach(() => {
    if (options.calm) double.calm();
    expect(double.violations).toEqual([]);
  });
  return double;
}
