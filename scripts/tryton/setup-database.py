"""Prepares a fresh Tryton database for booksync: a company in USD, fiscal years with monthly periods and
invoice sequences, a payment term, and a chart of accounts holding booksync's default account codes
(src/targets/account-mapping.ts). Run with the Tryton virtualenv's python after
`trytond-admin -d DB -u account_invoice --activate-dependencies`:

    TRYTOND_CONFIG=trytond.conf python setup-database.py DB [YEAR ...]

Idempotent: a database that already has the company is left as it is.
"""

import datetime
import sys
from decimal import Decimal

from trytond.pool import Pool
from trytond.transaction import Transaction, TransactionError

# code, name, type key, reconcile, party_required
ACCOUNTS = [
    ('1010', 'Operating Bank', 'cash', False, False),
    ('1020', 'Processor Clearing', 'current', False, False),
    ('1030', 'Payouts In Transit', 'current', False, False),
    ('1040', 'Checks To Deposit', 'current', False, False),
    ('1200', 'Accounts Receivable', 'receivable', True, True),
    ('2000', 'Accounts Payable', 'payable', True, True),
    ('2010', 'Outgoing Payments Clearing', 'liability', False, False),
    ('2020', 'Unapplied Cash', 'liability', False, False),
    ('3000', 'Opening Balances', 'equity', False, False),
    ('4000', 'Revenue', 'revenue', False, False),
    ('4010', 'Refunds', 'revenue', False, False),
    ('4020', 'Fee Income', 'revenue', False, False),
    # Contra revenue (a lowered invoice's credit note): a revenue account, as Tryton's customer invoice lines want.
    ('4030', 'Discounts and Write-offs', 'revenue', False, False),
    ('6000', 'Processing Fees', 'expense', False, False),
    ('6010', 'Bank Charges', 'expense', False, False),
    ('6020', 'Bill Expenses', 'expense', False, False),
    ('1050', 'Payout Bank', 'cash', False, False),
    ('4040', 'Surcharge Income', 'revenue', False, False),
    ('6030', 'Dispute Fees', 'expense', False, False),
    ('6040', 'Return Fees', 'expense', False, False),
    ('6050', 'Bad Debt', 'expense', False, False),
]


def main(database, years):
    Pool.start()
    pool = Pool(database)
    pool.init()
    # Tryton asks for table locks by failing the transaction with what to lock; start again with them.
    extras = {}
    while True:
        try:
            with Transaction().start(database, 0, **extras) as transaction:
                setup(pool, years)
                transaction.commit()
            return
        except TransactionError as error:
            error.fix(extras)


def setup(pool, years):
    Company = pool.get('company.company')
    if Company.search([]):
        print('company exists; nothing to do', file=sys.stderr)
        return
    Currency = pool.get('currency.currency')
    Party = pool.get('party.party')
    User = pool.get('res.user')
    usd, = Currency.search([('code', '=', 'USD')]) or Currency.create(
        [{'name': 'US Dollar', 'symbol': '$', 'code': 'USD', 'digits': 2, 'rounding': Decimal('0.01')}])
    company_party, = Party.create([{'name': 'booksync Test Company', 'addresses': [('create', [{}])]}])
    company, = Company.create([{'party': company_party.id, 'currency': usd.id}])
    admin, = User.search([('login', '=', 'admin')])
    # booksync pushes as this user: every accounting group, so it may read balances and post moves.
    groups = pool.get('res.group').search([])
    User.write([admin], {
        'companies': [('add', [company.id])], 'company': company.id,
        'groups': [('add', [g.id for g in groups])]})

    with Transaction().set_context(company=company.id, user=admin.id):
        accounts = chart(pool, company)
        fiscal_years(pool, company, years)
        configuration(pool, accounts)


def chart(pool, company):
    Type = pool.get('account.account.type')
    Account = pool.get('account.account')
    balance, income = Type.create([
        {'name': 'Balance Sheet', 'statement': 'balance', 'company': company.id},
        {'name': 'Income Statement', 'statement': 'income', 'company': company.id},
    ])
    types = dict(zip(
        ['cash', 'current', 'receivable', 'payable', 'liability', 'equity', 'revenue', 'expense'],
        Type.create([
            {'name': 'Cash', 'parent': balance.id, 'statement': 'balance', 'assets': True,
             'company': company.id},
            {'name': 'Current Assets', 'parent': balance.id, 'statement': 'balance', 'assets': True,
             'company': company.id},
            {'name': 'Receivable', 'parent': balance.id, 'statement': 'balance', 'assets': True,
             'receivable': True, 'company': company.id},
            {'name': 'Payable', 'parent': balance.id, 'statement': 'balance', 'payable': True,
             'company': company.id},
            {'name': 'Current Liabilities', 'parent': balance.id, 'statement': 'balance',
             'company': company.id},
            {'name': 'Equity', 'parent': balance.id, 'statement': 'balance', 'company': company.id},
            {'name': 'Revenue', 'parent': income.id, 'statement': 'income', 'revenue': True,
             'company': company.id},
            {'name': 'Expense', 'parent': income.id, 'statement': 'income', 'expense': True,
             'company': company.id},
        ])))
    root, = Account.create([{'name': 'Chart of Accounts', 'company': company.id}])
    created = Account.create([{
        'code': code, 'name': name, 'type': types[kind].id, 'reconcile': reconcile,
        'party_required': party_required, 'parent': root.id, 'company': company.id,
    } for code, name, kind, reconcile, party_required in ACCOUNTS])
    return {a.code: a for a in created}


def fiscal_years(pool, company, years):
    FiscalYear = pool.get('account.fiscalyear')
    ModelData = pool.get('ir.model.data')
    SequenceStrict = pool.get('ir.sequence.strict')
    move_type = ModelData.get_id('account', 'sequence_type_account_move')
    invoice_type = ModelData.get_id('account_invoice', 'sequence_type_account_invoice')
    for year in years:
        move_sequence, = SequenceStrict.create([{
            'name': f'Moves {year}', 'sequence_type': move_type, 'company': company.id}])
        invoices = SequenceStrict.create([{
            'name': f'{kind} {year}', 'sequence_type': invoice_type, 'company': company.id,
            'prefix': f'{prefix}{year}-'} for kind, prefix in [
                ('Customer invoices', 'INV'), ('Customer credit notes', 'CN'),
                ('Supplier invoices', 'SUP'), ('Supplier credit notes', 'SCN')]])
        fiscal_year, = FiscalYear.create([{
            'name': str(year),
            'start_date': datetime.date(year, 1, 1),
            'end_date': datetime.date(year, 12, 31),
            'company': company.id,
            'move_sequence': move_sequence.id,
            'invoice_sequences': [('create', [{
                'company': company.id,
                'out_invoice_sequence': invoices[0].id,
                'out_credit_note_sequence': invoices[1].id,
                'in_invoice_sequence': invoices[2].id,
                'in_credit_note_sequence': invoices[3].id,
            }])],
        }])
        FiscalYear.create_period([fiscal_year])


def configuration(pool, accounts):
    Configuration = pool.get('account.configuration')
    PaymentTerm = pool.get('account.invoice.payment_term')
    config = Configuration(1)
    config.default_account_receivable = accounts['1200']
    config.default_account_payable = accounts['2000']
    config.save()
    PaymentTerm.create([{'name': 'Due on receipt', 'lines': [('create', [{'type': 'remainder'}])]}])


if __name__ == '__main__':
    this_year = datetime.date.today().year
    main(sys.argv[1], [int(y) for y in sys.argv[2:]] or [this_year - 1, this_year, this_year + 1])
