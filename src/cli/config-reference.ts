import { z } from 'zod';
import { secretFileSetting } from '../config/secret-files.js';
import { dataDirDefaults, settingsSchema } from '../config/settings.js';
import { BROAD_SCOPES, GRANULAR_SCOPES } from '../targets/xero/consent.js';

/**
 * Defaults computed when booksync runs rather than fixed in the schema, as the README's table states them
 * (the data files are added from dataDirDefaults).
 */
const derivedDefaults: Record<string, string> = {
  LOG_FORMAT: '`pretty` on a terminal, `json` otherwise',
  INGRESS_PUBLIC_URL: '`http://INGRESS_HOST:INGRESS_PORT`',
  QBO_REALM_ID: 'the company `booksync targets connect quickbooks` saved',
  XERO_TENANT_ID: 'the organisation `booksync targets connect xero` saved',
  XERO_TAX_TYPE:
    "the organisation's no-tax rate, read from its TaxRates: active, 0 %, for revenue and expenses (TaxType `NONE` first)",
  XERO_SCOPES: `the granular scopes booksync needs: \`${GRANULAR_SCOPES}\` (with XERO_BROAD_SCOPES: \`${BROAD_SCOPES}\`)`,
  ...Object.fromEntries(
    Object.entries(dataDirDefaults).map(([name, file]) => [name, `\`BOOKSYNC_DATA_DIR/${file}\``]),
  ),
};

export const referenceStart =
  '<!-- config-reference:start (generated from src/config/settings.ts: npm run docs:config) -->';
export const referenceEnd = '<!-- config-reference:end -->';

/** The page that holds the configuration reference, from the repository's root. */
export const configurationPage = 'docs/configuration.md';

/** The configuration table of docs/configuration.md, from the zod settings schema: the one source of every setting. */
export function configurationReference(): string {
  const rows = Object.entries(settingsSchema.shape).map(([name, schema]) => {
    const json = z.toJSONSchema(schema as z.ZodType, { io: 'input', unrepresentable: 'any' }) as {
      default?: unknown;
      enum?: unknown[];
      description?: string;
    };
    const description = (schema as z.ZodType).description ?? json.description ?? '';
    // A fixed default (the schema's), or one computed when booksync runs (derivedDefaults), never in the text.
    const fallback =
      json.default !== undefined
        ? `\`${String(json.default)}\``
        : derivedDefaults[name] !== undefined
          ? (derivedDefaults[name] as string)
          : '';
    const values = json.enum ? ` One of ${json.enum.map((v) => `\`${String(v)}\``).join(', ')}.` : '';
    const fileSetting = secretFileSetting(name);
    const fromFile =
      fileSetting === null || fileSetting in settingsSchema.shape
        ? ''
        : ` Or \`${fileSetting}\`: a file holding it (not both).`;
    return `| \`${name}\` | ${fallback} | ${description}${values}${fromFile} |`;
  });
  return [referenceStart, '| variable | default | meaning |', '|---|---|---|', ...rows, referenceEnd].join(
    '\n',
  );
}

/** The page's text with the reference block replaced by the current one. */
export function withConfigurationReference(readme: string): string {
  const start = readme.indexOf(referenceStart);
  const end = readme.indexOf(referenceEnd);
  if (start < 0 || end < 0) throw new Error(`${configurationPage} has no configuration reference markers`);
  return readme.slice(0, start) + configurationReference() + readme.slice(end + referenceEnd.length);
}
