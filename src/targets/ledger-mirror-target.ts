import { type AccountName, Accounts } from '../ledger/chart-of-accounts.js';
import type { EmbeddedLedger } from '../ledger/embedded-ledger.js';
import { isReversalKey } from '../ledger/entry-key.js';
import { LedgerConflictError, LedgerEntryNotFoundError, LedgerValidationError } from '../ledger/errors.js';
import { TargetConflictError, TargetRefusedError } from './errors.js';
import { pushOneByOne } from './push-one-by-one.js';
import type {
  AccountingTarget,
  PushContext,
  PushResult,
  RemoteRecord,
  TargetDocument,
} from './target-port.js';

/**
 * The simplest target: a second embedded ledger receiving every document as a journal entry (reversals by
 * its own reverse()). It is the port's reference implementation, the baseline of the target contract suite,
 * and what a business without accounting software can export to hledger on another host.
 */
export class LedgerMirrorTarget implements AccountingTarget {
  readonly name: string;
  readonly #mirror: EmbeddedLedger;

  constructor(mirror: EmbeddedLedger, name = 'ledger-mirror') {
    this.#mirror = mirror;
    this.name = name;
  }

  async verify(): Promise<void> {
    await this.#mirror.trialBalance();
  }

  async push(document: TargetDocument): Promise<PushResult> {
    const existing = await this.find(document.key);
    if (existing) {
      // A reversal is its original negated: found by key, it is the same reversal.
      if (document.kind === 'reversal')
        return { ...existing, contentHash: document.contentHash, created: false };
      if (existing.contentHash !== document.contentHash) {
        throw new TargetConflictError(this.name, document.key, existing.contentHash, document.contentHash);
      }
      return { ...existing, created: false };
    }
    try {
      const { entry, created } =
        document.kind === 'reversal'
          ? await this.#mirror.reverse(document.reverses as string, {
              reason: document.reason ?? document.description,
              date: document.date,
            })
          : await this.#mirror.post({
              key: document.key,
              date: document.date,
              description: `${document.description} [${document.contentHash}]`,
              lines: document.lines.map((l) => ({
                account: Accounts[l.role] as AccountName,
                amountCents: l.amountCents,
              })),
            });
      return { key: document.key, remoteIds: [String(entry.id)], contentHash: document.contentHash, created };
    } catch (error) {
      if (error instanceof LedgerConflictError) {
        throw new TargetConflictError(this.name, document.key, error.existingHash, document.contentHash);
      }
      if (error instanceof LedgerValidationError || error instanceof LedgerEntryNotFoundError) {
        throw new TargetRefusedError(this.name, error.message, { cause: error });
      }
      throw error;
    }
  }

  async find(key: string): Promise<RemoteRecord | null> {
    const entry = await this.#mirror.get(key);
    if (!entry) return null;
    // The source's content hash travels in the description; a reversal's description is the mirror's own.
    const hash = isReversalKey(key) ? null : /\[([0-9a-f]{64})\]$/.exec(entry.description)?.[1];
    return { key, remoteIds: [String(entry.id)], contentHash: hash ?? entry.contentHash };
  }

  /**
   * The mirror has no lock of its own: what it holds is written only through push(), whose documents are
   * already dated out of the source ledger's closed period (PushContext.closedThrough).
   */
  readonly batches = false;

  pushMany(documents: TargetDocument[], context: PushContext): Promise<(PushResult | Error)[]> {
    return pushOneByOne(this, documents, context);
  }

  warning(): string | null {
    return null;
  }

  async lockedThrough(): Promise<string | null> {
    return null;
  }

  async close(): Promise<void> {}
}
