// The console's templating: tagged templates that escape every interpolated value unless it is already
// markup made by this same tag. No template files, no build step, and no way to forget an escape: a string
// from the books, a target or the service (a customer named `<script>`) is always text.

const escapes: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

/** Markup the console made itself; only `html` and `joinHtml` create it. */
export class SafeHtml {
  readonly markup: string;
  constructor(markup: string) {
    this.markup = markup;
  }
  toString(): string {
    return this.markup;
  }
}

export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[];

export const escapeText = (text: string): string => text.replace(/[&<>"'`]/g, (ch) => escapes[ch]!);

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.markup;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeText(String(value));
}

/** `html\`<td>${name}</td>\``: every value escaped, arrays joined, null/undefined/false left out. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return new SafeHtml(out);
}

/** Items rendered each by `each`, one after another. */
export function joinHtml<T>(items: readonly T[], each: (item: T, index: number) => SafeHtml): SafeHtml {
  return new SafeHtml(items.map((item, i) => each(item, i).markup).join(''));
}
