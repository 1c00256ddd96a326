#!/usr/bin/env node
// booksync's command line. TypeScript sources run through tsx's loader, so there is no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
