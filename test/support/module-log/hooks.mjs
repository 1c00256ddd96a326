// Module customization hooks (nodejs.org/api/module.html#customization-hooks): each resolved url is
// appended to the file MODULE_LOG names, so a test can read what a process loaded.
import { appendFileSync } from 'node:fs';

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (process.env.MODULE_LOG) appendFileSync(process.env.MODULE_LOG, `${resolved.url}\n`);
  return resolved;
}
