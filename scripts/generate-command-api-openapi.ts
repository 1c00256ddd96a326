import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { commandApiOpenApiDocument } from '../src/command-api/openapi-document.js';

// Writes docs/command-api.openapi.json, what /commands/openapi.json serves: `npm run docs:command-api`.
const target = fileURLToPath(new URL('../docs/command-api.openapi.json', import.meta.url));
writeFileSync(target, await commandApiOpenApiDocument());
console.log(`wrote ${target}`);
