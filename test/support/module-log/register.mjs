// Loaded with `node --import` (NODE_OPTIONS) in a child process: registers hooks.mjs, which writes the url of
// every module the process imports to the file MODULE_LOG names (test/cli/worker-imports.test.ts).
import { register } from 'node:module';

register(new URL('./hooks.mjs', import.meta.url));
