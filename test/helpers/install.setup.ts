/* eslint-disable @n8n/community-nodes/no-restricted-globals -- test code, not node code: n8n's strict lint config (kept unmodified) applies node rules to every .ts file */
// jest `setupFiles` of the install project: the e2e suite's install checks only (the matrix's custom-folder and
// registry cells, whose install path is what they test; the rest of the suite runs once per n8n line).
process.env.E2E_SCOPE = 'install';
