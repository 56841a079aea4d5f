/** `npm run docs:config`: writes the README's configuration table from src/config/schema.ts (between its markers). */
import { readFileSync, writeFileSync } from 'node:fs';
import { withConfigTable } from '../src/config/schema.js';

writeFileSync('README.md', withConfigTable(readFileSync('README.md', 'utf8')));
