import { z } from 'zod';
import { duration, durationMs, flag, httpUrl } from './setting-types.js';

// The settings of the accounting targets that are vendors' software (Tryton, QuickBooks Online, Xero): part of
// src/config/settings.ts's schema, kept here so that file stays one screenful of booksync's own settings.

export const targetSettings = {
  TRYTON_URL: httpUrl.optional().describe('Tryton server (its JSON-RPC root), e.g. http://127.0.0.1:8000.'),
  TRYTON_DATABASE: z.string().min(1).optional().describe('Tryton database name.'),
  TRYTON_USER: z.string().min(1).default('admin').describe('Tryton login booksync pushes as.'),
  TRYTON_PASSWORD: z.string().min(1).optional().describe("That login's password."),
  QBO_CLIENT_ID: z
    .string()
    .min(1)
    .optional()
    .describe('Client id of your Intuit developer app (QuickBooks Online target).'),
  QBO_CLIENT_SECRET: z.string().min(1).optional().describe("That app's client secret."),
  QBO_TOKEN_KEY: z
    .string()
    .min(16, 'at least 16 characters')
    .optional()
    .describe(
      'Secret the QuickBooks refresh token is encrypted with at rest (AES-256-GCM); keep it outside the data folder.',
    ),
  QBO_REALM_ID: z
    .string()
    .regex(/^\d{1,20}$/, "QuickBooks' company id (digits)")
    .optional()
    .describe(
      'QuickBooks company (realm) id; `targets connect quickbooks` refuses another company, even with --switch-company.',
    ),
  QBO_BASE_URL: httpUrl
    .default('https://quickbooks.api.intuit.com')
    .describe('QuickBooks Online API root; https://sandbox-quickbooks.api.intuit.com for a sandbox company.'),
  QBO_REDIRECT_URI: httpUrl
    .default('http://localhost:8765/quickbooks/callback')
    .describe(
      'Redirect URI registered with the Intuit app; `targets connect` listens on it when it is a loopback address.',
    ),
  QBO_TOKEN_FILE: z
    .string()
    .min(1)
    .optional()
    .describe(
      'File the QuickBooks connection (company and encrypted refresh token) is kept in when LEDGER_URL is unset; with LEDGER_URL it is in the database (a file left from before is moved there once).',
    ),
  QBO_OAUTH_URL: httpUrl
    .default('https://oauth.platform.intuit.com')
    .describe("Intuit's OAuth 2.0 token service root (its /oauth2/v1/tokens/bearer)."),
  QBO_CONSENT_URL: httpUrl
    .default('https://appcenter.intuit.com/connect/oauth2')
    .describe("Intuit's consent page `targets connect` sends you to."),
  QBO_TAX_CODE: z
    .string()
    .min(1)
    .max(100)
    .default('NON')
    .describe(
      "The sales tax code (Id or name) put on every sales line booksync writes to QuickBooks (invoices, sales receipts, refund receipts), so a company on automated sales tax adds no tax the service never charged. It must be a non-taxable code: an unknown, inactive or taxable one stops start-up. `NON` is QuickBooks' non-taxable code in US companies; elsewhere name the company's exempt or zero-rated code.",
    ),
  XERO_CLIENT_ID: z
    .string()
    .min(1)
    .optional()
    .describe('Client id of your Xero app (developer.xero.com, Web app; Xero target).'),
  XERO_CLIENT_SECRET: z.string().min(1).optional().describe("That app's client secret."),
  XERO_TOKEN_KEY: z
    .string()
    .min(16, 'at least 16 characters')
    .optional()
    .describe(
      'Secret the Xero refresh token is encrypted with at rest (AES-256-GCM); keep it outside the data folder.',
    ),
  XERO_TENANT_ID: z
    .uuid("Xero's organisation (tenant) id")
    .optional()
    .describe(
      'Xero organisation (tenant) id; `targets connect xero` takes it among those the consent reaches (required when it reaches several) and refuses another.',
    ),
  XERO_BASE_URL: httpUrl
    .default('https://api.xero.com')
    .describe(
      "Xero's API host: the Accounting API is under its /api.xro/2.0, the organisations under /connections.",
    ),
  XERO_TOKEN_URL: httpUrl
    .default('https://identity.xero.com/connect/token')
    .describe("Xero's OAuth 2.0 token endpoint (code exchange and refresh)."),
  XERO_CONSENT_URL: httpUrl
    .default('https://login.xero.com/identity/connect/authorize')
    .describe("Xero's consent page `targets connect xero` sends you to."),
  XERO_REDIRECT_URI: httpUrl
    .default('http://localhost:8766/xero/callback')
    .describe(
      'Redirect URI registered with the Xero app; `targets connect xero` listens on it when it is a loopback address.',
    ),
  XERO_SCOPES: z
    .string()
    .regex(/^\s*[a-z_.]+(\s+[a-z_.]+)*\s*$/, 'Xero scopes separated by spaces, e.g. accounting.invoices')
    .optional()
    .describe(
      'The OAuth scopes `targets connect xero` asks Xero for, separated by spaces (`offline_access` is always added). A consent without the scope of an endpoint booksync calls leaves that call refused (HTTP 401) until you connect again with it.',
    ),
  XERO_BROAD_SCOPES: flag('false').describe(
    "Your Xero app was created before 2 March 2026: ask Xero's broad scopes (`accounting.transactions`, `accounting.reports.read`) instead of the granular ones. Apps created since may ask only granular scopes (Xero refuses the consent with `invalid_scope`); older apps may ask either until September 2027.",
  ),
  XERO_TAX_TYPE: z
    .string()
    .regex(/^[A-Za-z0-9_]{1,50}$/, 'a Xero TaxType, e.g. NONE or TAX001')
    .optional()
    .describe(
      "The Xero TaxType put on every line of the invoices, bills, credit notes and bank transactions booksync writes, sent tax-exclusive: the service's amounts carry no tax (manual journals and overpayments, which record no sale, stay NoTax). It must be an active 0 % rate of the organisation's TaxRates for revenue and expenses: an unknown or taxed one stops start-up.",
    ),
  XERO_RATE_WINDOW: duration
    .default('60s')
    .refine((value) => !duration.safeParse(value).success || durationMs(value) >= 1_000, 'at least 1s')
    .describe(
      "The minute of Xero's rate limit as booksync counts it (60 calls a minute per organisation, less ten left to other callers): Xero's own is 60s. Shorter only beside a Xero double whose minute is as short (the tests do, to run a day's pushes without waiting out real minutes); against Xero a shorter window only earns 429 answers, which booksync then waits out.",
    ),
  XERO_TOKEN_FILE: z
    .string()
    .min(1)
    .optional()
    .describe(
      'File the Xero connection (organisation and encrypted refresh token) is kept in when LEDGER_URL is unset; with LEDGER_URL it is in the database (a file left from before is moved there once).',
    ),
};
