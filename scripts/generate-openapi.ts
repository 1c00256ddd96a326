import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildOpenApiDocument, serializeOpenApiDocument } from '@booksync/service-contract/openapi';

// Writes docs/openapi.json from the zod schemas: `npx tsx scripts/generate-openapi.ts`.
const target = fileURLToPath(new URL('../docs/openapi.json', import.meta.url));
writeFileSync(target, serializeOpenApiDocument(buildOpenApiDocument()));
console.log(`wrote ${target}`);
