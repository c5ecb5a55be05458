/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code, not node code: n8n's strict lint config (kept unmodified) applies node rules to every .ts file */
// n8n-core, loaded once for every harness. Its InstanceSettings writes a config file under the user folder when
// first used: point that at a temporary folder before the first require, so tests never touch $HOME/.n8n.
import { mkdtempSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

process.env.N8N_USER_FOLDER ??= mkdtempSync(join(tmpdir(), 'sf-n8n-user-'));
// n8n-core logs every node error it handles (continue-on-fail included); the tests assert on those errors instead.
process.env.N8N_LOG_LEVEL ??= 'silent';
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const core = require('n8n-core') as typeof import('n8n-core');
