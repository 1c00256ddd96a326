import { writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { TokenCipher } from '../../src/targets/oauth/token-cipher.js';
import type {
  AccountingTarget,
  PushContext,
  RemoteRecord,
  TargetDocument,
} from '../../src/targets/target-port.js';
import { SealedTokenInMemory } from '../support/sealed-token-in-memory.js';
import { documentsForContract } from './target-contract.js';

// What the opt-in runs against a target's real sandbox company (QuickBooks Online, Xero) share: the settings
// they need from the environment (else skipped, saying which), the refresh token sealed for the run only and
// the rotated one kept in a file (never logged), and the contract's invoice, payment and reversal pushed,
// each found again by key and pushed a second time without a create.

/** The settings a sandbox run needs: those not set, and the line a skipped run says. */
export function sandboxSettings(names: string[], skipped: string): { missing: string[]; reason: string } {
  const missing = names.filter((v) => !process.env[v]);
  return { missing, reason: `${skipped} skipped: ${missing.join(', ')} not set` };
}

/** A skipped sandbox run still shows in the report, with its reason. */
export function reportSkipped(title: string, settings: { missing: string[]; reason: string }): void {
  if (settings.missing.length > 0) {
    describe(title, () => {
      it.skip(settings.reason, () => {});
    });
  }
}

/** The refresh token sealed with a secret of this run only; the provider rotates it as the run refreshes. */
export function sandboxRefreshToken(refreshToken: string): {
  cipher: TokenCipher;
  storage: SealedTokenInMemory;
  /** Writes the rotated refresh token to `file` (mode 0600), if named; else says it was not kept. */
  keep(file: string | undefined, notKept: string): Promise<void>;
} {
  const cipher = new TokenCipher('sandbox-run-only-secret-not-stored');
  const storage = new SealedTokenInMemory(cipher.seal(refreshToken));
  return {
    cipher,
    storage,
    async keep(file, notKept) {
      if (file) await writeFile(file, cipher.open(storage.sealed as string), { mode: 0o600 });
      else console.info(notKept);
    },
  };
}

/**
 * The contract's invoice, payment and reversal pushed to the sandbox: each created, and found again by key
 * as a restarted worker would (`found` is what the find must match). `between` checks the invoice at the
 * target once all three are pushed; then a second push of each key creates nothing.
 */
export async function pushContractDocumentsTwice(
  target: AccountingTarget,
  found: (doc: TargetDocument) => Partial<RemoteRecord>,
  between: (
    pushed: Map<string, RemoteRecord>,
    docs: ReturnType<typeof documentsForContract>,
  ) => Promise<void>,
): Promise<void> {
  await target.verify();
  const docs = documentsForContract();
  const pushed = new Map<string, RemoteRecord>();
  const context: PushContext = {
    mayExist: () => true,
    refusals: () => 0,
    pushed: (key) => pushed.get(key) ?? null,
  };
  for (const doc of [docs.invoice, docs.payment, docs.reversal]) {
    const result = await target.push(doc, context);
    expect(result.created).toBe(true);
    pushed.set(doc.key, result);
    // Found again by key at the target, as a restarted worker would.
    expect(await target.find(doc.key)).toMatchObject(found(doc));
  }
  await between(pushed, docs);
  // A second push of each key creates nothing.
  for (const doc of [docs.invoice, docs.payment, docs.reversal]) {
    expect((await target.push(doc, context)).created).toBe(false);
  }
}
