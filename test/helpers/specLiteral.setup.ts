/* eslint-disable @n8n/community-nodes/no-restricted-globals -- test code, not node code: n8n's strict lint config (kept unmodified) applies node rules to every .ts file */
// jest `setupFiles` of the unit-spec-literal project: its suites' sandboxes run the spec-literal profile.
process.env.SANDBOX_PROFILE = 'spec-literal';
