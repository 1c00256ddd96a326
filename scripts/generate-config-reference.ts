import { readFileSync, writeFileSync } from 'node:fs';
import { configurationPage, withConfigurationReference } from '../src/cli/config-reference.js';

// Rewrites the configuration table of docs/configuration.md from the settings schema.
writeFileSync(configurationPage, withConfigurationReference(readFileSync(configurationPage, 'utf8')));
