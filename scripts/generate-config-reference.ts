import { readFileSync, writeFileSync } from 'node:fs';
import { withConfigurationReference } from '../src/config/reference.js';

// Rewrites the configuration table of README.md from the settings schema.
writeFileSync('README.md', withConfigurationReference(readFileSync('README.md', 'utf8')));
