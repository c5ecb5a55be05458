// ESLint configuration of the local rule (./index.js), the second step of `npm run lint` after `n8n-node lint`:
// `eslint --no-config-lookup -c dev/eslint-rules/lint.config.mjs --max-warnings 0 nodes credentials`.
// Not in the root eslint.config.mjs: with "strict": true in package.json's n8n section, `n8n-node lint` refuses to
// run when that file differs from n8n's default.
import tsParser from '@typescript-eslint/parser';

import local from './index.js';

export default local.configs(tsParser);
