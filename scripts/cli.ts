/**
 * The CLI run from source (`npm run dev`, `npm run openapi:export`):
 * src/cli/main.ts only exports `main`, and bin/memorybook.js runs the build.
 */
import { main } from '../src/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
