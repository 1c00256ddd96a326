// Xero's `where` filter, the subset booksync sends (README, "Xero's rules": `where-null-string-method`):
//   expr    := and ((" OR " | "||") and)*
//   and     := primary ((" AND " | "&&") primary)*
//   primary := "(" expr ")" | term
//   term    := Field(.Field)* ("==" | "!=") ("literal" | null)
//            | Field(.Field)*.StartsWith("literal") | ….EndsWith("literal") | ….Contains("literal")
// Xero evaluates it on each record as C# does: AND / && and OR / || stop at the first operand that decides, so
// `Reference != null && Reference.Contains("x")` never calls Contains on a record without a Reference; a string
// method called on a field the record does not have (null) fails the whole request with a 500 (Xero on
// freakboy3742/pyxero#181: "If you try filter based on an optional property and a single contact does not
// have it, you will receive that error"; waynerobinson/xeroizer#138 and #408, `Reference.Contains` and
// `BankAccountNumber.EndsWith` answered 500).

type Doc = Record<string, unknown>;
type Test = (doc: Doc) => boolean;

/** The filter does not parse (Xero: a 400 QueryParseException). */
export class WhereParseError extends Error {}

/** A string method met a null field on some record (Xero: a 500 for the whole request). */
export class WhereNullFault extends Error {}

export interface WhereOptions {
  /** A string method on a null field fails (Xero's behaviour); false: null reads as '' (the rule turned off). */
  nullFails: boolean;
}

function fieldOf(doc: Doc, path: string): unknown {
  let value: unknown = doc;
  for (const part of path.split('.')) value = (value as Doc | undefined)?.[part];
  return value;
}

const methods = ['startswith', 'endswith', 'contains'] as const;

/** The filter compiled once for a request: a test of each record, which may throw WhereNullFault. */
export function compileWhere(where: string, options: WhereOptions): Test {
  let pos = 0;
  const text = where;
  const skip = () => {
    while (text[pos] === ' ') pos++;
  };
  const fail = (): never => {
    throw new WhereParseError(`The where clause is not understood at ${pos}: ${where}`);
  };
  const literal = (): string | null => {
    if (/^null\b/i.test(text.slice(pos))) {
      pos += 4;
      return null;
    }
    if (text[pos] !== '"') fail();
    pos++;
    let out = '';
    while (pos < text.length && text[pos] !== '"') {
      if (text[pos] === '\\') pos++;
      out += text[pos];
      pos++;
    }
    if (text[pos] !== '"') fail();
    pos++;
    return out;
  };
  const term = (): Test => {
    const m = /^[A-Za-z][A-Za-z0-9]*(?:\.[A-Za-z][A-Za-z0-9]*)*/.exec(text.slice(pos));
    if (!m) return fail();
    let path = m[0];
    pos += path.length;
    const last = path.split('.').at(-1)?.toLowerCase() ?? '';
    const method = methods.find((name) => name === last && text[pos] === '(');
    if (method) {
      path = path.slice(0, path.lastIndexOf('.'));
      pos++;
      const arg = literal();
      if (arg === null || text[pos] !== ')') fail();
      pos++;
      const needle = arg as string;
      return (doc) => {
        const actual = fieldOf(doc, path);
        if ((actual === undefined || actual === null) && options.nullFails)
          throw new WhereNullFault(`${path}.${method}() on a record without ${path}`);
        const value = actual === undefined || actual === null ? '' : String(actual);
        if (method === 'startswith') return value.startsWith(needle);
        if (method === 'endswith') return value.endsWith(needle);
        return value.toLowerCase().includes(needle.toLowerCase());
      };
    }
    skip();
    const op = text.slice(pos, pos + 2);
    if (op !== '==' && op !== '!=') fail();
    pos += 2;
    skip();
    const arg = literal();
    return (doc) => {
      const actual = fieldOf(doc, path);
      const value = actual === undefined || actual === null ? null : String(actual);
      return op === '==' ? value === arg : value !== arg;
    };
  };
  const primary = (): Test => {
    skip();
    if (text[pos] === '(') {
      pos++;
      const inner = expr();
      skip();
      if (text[pos] !== ')') fail();
      pos++;
      return inner;
    }
    return term();
  };
  // operand (operator operand)*: every operand parsed; when run, the first that decides ends the chain.
  const chain = (words: RegExp, operand: () => Test, stopsAt: boolean) => (): Test => {
    const operands = [operand()];
    for (;;) {
      skip();
      const word = words.exec(text.slice(pos));
      if (!word) break;
      pos += word[0].length;
      operands.push(operand());
    }
    if (operands.length === 1) return operands[0] as Test;
    return (doc) => {
      for (const test of operands) if (test(doc) === stopsAt) return stopsAt;
      return !stopsAt;
    };
  };
  const and = chain(/^(?:AND |&&)/, primary, false);
  const expr = chain(/^(?:OR |\|\|)/, and, true);
  const test = expr();
  skip();
  if (pos !== text.length) fail();
  return test;
}
