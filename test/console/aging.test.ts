import { describe, expect, it } from 'vitest';
import { aged, agingTotals, bucketOf, daysBetween, documentDate, matching } from '../../src/console/aging.js';
import { escapeText, html, joinHtml } from '../../src/console/html.js';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import type { BookedEntry } from '../../src/ledger/ledger-port.js';

const entry = (
  key: string,
  date: string,
  amountCents: number,
  reverses: string | null = null,
): BookedEntry => ({
  id: 1,
  key,
  date,
  description: key,
  lines: [
    { account: Accounts.AccountsReceivable, amountCents },
    { account: Accounts.Revenue, amountCents: -amountCents },
  ],
  links: {},
  reverses,
  reversedBy: null,
  contentHash: 'x',
  createdAt: '2026-01-01T00:00:00Z',
});

describe('aging', () => {
  it('puts days in the buckets at their edges', () => {
    expect([0, 30, 31, 60, 61, 90, 91].map(bucketOf)).toEqual([
      '0-30',
      '0-30',
      '31-60',
      '31-60',
      '61-90',
      '61-90',
      '90+',
    ]);
    expect(daysBetween('2026-02-28', '2026-03-01')).toBe(1);
    expect(daysBetween('2024-02-28', '2024-03-01')).toBe(2);
  });

  it("dates a document by its first entry debiting receivables, never a payment's or a reversal's", () => {
    const entries = [
      entry('payment:p', '2026-01-02', -500),
      entry('reversal:invoice:x', '2025-12-01', -1000, 'invoice:x'),
      entry('invoice-adjustment:x:1', '2026-01-20', 200),
      entry('invoice:x', '2026-01-05', 1000),
    ];
    expect(documentDate(entries, 'receivable')).toBe('2026-01-05');
    expect(documentDate([], 'receivable')).toBeNull();
  });

  it('sums the buckets, and searches ids and names', () => {
    const names = { documentName: 'INV-7', counterpartyName: 'Bluebird Bakery' };
    const items = [
      aged(
        { documentId: 'pl_1', counterpartyId: 'cus_1', openCents: 100 },
        '2026-03-01',
        '2026-03-15',
        names,
      ),
      aged({ documentId: 'pl_2', counterpartyId: 'cus_2', openCents: 50 }, '2025-11-01', '2026-03-15', {
        documentName: null,
        counterpartyName: null,
      }),
      aged({ documentId: null, counterpartyId: null, openCents: 7 }, null, '2026-03-15', {
        documentName: null,
        counterpartyName: null,
      }),
    ];
    expect(agingTotals(items)).toEqual({
      '0-30': 100,
      '31-60': 0,
      '61-90': 0,
      '90+': 50,
      total: 157,
      undated: 7,
    });
    expect(matching(items, 'bakery').map((i) => i.documentId)).toEqual(['pl_1']);
    expect(matching(items, 'CUS_2').map((i) => i.documentId)).toEqual(['pl_2']);
    expect(matching(items, 'inv-7').map((i) => i.documentId)).toEqual(['pl_1']);
    expect(matching(items, ' ')).toHaveLength(3);
  });
});

describe('the html tag', () => {
  it('escapes every value, keeps its own markup, joins arrays and drops null', () => {
    const name = `<script>alert('x')</script> & "q" \``;
    expect(html`<td title="${name}">${name}</td>`.markup).toBe(
      `<td title="${escapeText(name)}">&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot; &#96;</td>`,
    );
    expect(html`<ul>${['a<', 'b'].map((x) => html`<li>${x}</li>`)}</ul>`.markup).toBe(
      '<ul><li>a&lt;</li><li>b</li></ul>',
    );
    expect(html`${null}${undefined}${false}${0}`.markup).toBe('0');
    expect(joinHtml(['<'], (x) => html`<b>${x}</b>`).markup).toBe('<b>&lt;</b>');
  });
});
