"""Prepares a Tryton database as a business starting with Tryton's own chart of accounts would have it: a
company in USD, its chart made by the Create Chart wizard (account.create_chart) from the `account` module's
Universal Chart of Accounts template, the default receivable and payable accounts it proposes, the journals
and payment terms the modules install, and no account of booksync's. `booksync targets setup tryton` is
tested on it. Run with
the Tryton virtualenv's python after `trytond-admin -d DB -u account_invoice --activate-dependencies`:

    TRYTOND_CONFIG=trytond.conf python setup-tryton-chart.py DB

Idempotent: a database that already has the company is left as it is.
"""

import sys
from decimal import Decimal

from trytond.pool import Pool
from trytond.transaction import Transaction, TransactionError


def main(database):
    Pool.start()
    pool = Pool(database)
    pool.init()
    extras = {}
    while True:
        try:
            with Transaction().start(database, 0, **extras) as transaction:
                setup(pool)
                transaction.commit()
            return
        except TransactionError as error:
            error.fix(extras)


def setup(pool):
    Company = pool.get('company.company')
    if Company.search([]):
        print('company exists; nothing to do', file=sys.stderr)
        return
    Currency = pool.get('currency.currency')
    Party = pool.get('party.party')
    User = pool.get('res.user')
    usd, = Currency.search([('code', '=', 'USD')]) or Currency.create(
        [{'name': 'US Dollar', 'symbol': '$', 'code': 'USD', 'digits': 2, 'rounding': Decimal('0.01')}])
    party, = Party.create([{'name': 'Own Chart Company', 'addresses': [('create', [{}])]}])
    company, = Company.create([{'party': party.id, 'currency': usd.id}])
    admin, = User.search([('login', '=', 'admin')])
    groups = pool.get('res.group').search([])
    User.write([admin], {
        'companies': [('add', [company.id])], 'company': company.id,
        'groups': [('add', [g.id for g in groups])]})
    with Transaction().set_context(company=company.id, user=admin.id):
        create_chart(pool, company)


def create_chart(pool, company):
    """The wizard's two steps as a person runs them: the template and company, then the default accounts."""
    ModelData = pool.get('ir.model.data')
    AccountTemplate = pool.get('account.account.template')
    Account = pool.get('account.account')
    CreateChart = pool.get('account.create_chart', type='wizard')
    template = AccountTemplate(ModelData.get_id('account', 'account_template_root_en'))
    session_id, _, _ = CreateChart.create()
    wizard = CreateChart(session_id)
    wizard.account.account_template = template
    wizard.account.company = company
    wizard.transition_create_account()
    wizard.properties.company = company
    receivable, = Account.search([
            ('type.receivable', '=', True), ('party_required', '=', True),
            ('company', '=', company.id)], limit=1)
    payable, = Account.search([
            ('type.payable', '=', True), ('party_required', '=', True),
            ('company', '=', company.id)], limit=1)
    wizard.properties.account_receivable = receivable
    wizard.properties.account_payable = payable
    wizard.transition_create_properties()
    CreateChart.delete(session_id)


if __name__ == '__main__':
    main(sys.argv[1])
