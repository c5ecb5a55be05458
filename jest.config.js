// Thirteen suites: `unit` (npm test: pure units plus nodes run through n8n-core against the in-process sandbox),
// `e2e` (a real n8n process, or queue mode with E2E_N8N_MODE=queue; with it test/n8n, the n8n contract), `install`
// (the e2e suite's checks that depend on the install path: the custom-folder and registry cells), `ai` (an AI Agent with Storefront tools and a
// scripted model, in a real n8n of the matrix cell), `queue` (n8n's queue mode only: it starts the
// queue-mode topology itself, so it cannot pass anywhere else), `registry` (the package installed, updated and
// removed by name through n8n's Community Nodes from a local npm registry: E2E_INSTALL=registry), `browser` (the n8n editor in Debian's chromium),
// `reliability` (a real n8n under load, crashes and hostile input) and `dev` (`npm run dev` on a copy of the repository: an
// edit of the node reaches the running n8n through its hot reload), `polling` (the Storefront Polling Trigger in one real n8n
// process: scheduled polls, downtime, a crash during a poll; one matrix cell per n8n line), `unit-spec-literal` (the
// transport, locator, Create or Update, polling-trigger and catch-up unit suites again, against the sandbox's spec-literal profile: `npm test` runs it),
// `catchup` (the Storefront Trigger's catch-up after downtime and refused-delivery reports in one real n8n process; one
// matrix cell per n8n line), `lastword` (an order's status changes as the workflow's last word, beside it in an n8n of
// its own).
const transform = { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', diagnostics: false }] };
const common = { testEnvironment: 'node', transform, moduleFileExtensions: ['ts', 'js', 'json'] };

module.exports = {
	projects: [
		{
			...common,
			displayName: 'unit',
			testMatch: ['<rootDir>/test/**/*.test.ts'],
			testPathIgnorePatterns: [
				'<rootDir>/test/e2e/',
				'<rootDir>/test/ai/',
				'<rootDir>/test/queue/',
				'<rootDir>/test/registry/',
				'<rootDir>/test/browser/',
				'<rootDir>/test/reliability/',
				'<rootDir>/test/dev/',
				'<rootDir>/test/polling/',
				'<rootDir>/test/catchup/',
				'<rootDir>/test/lastword/',
				// The soak's judge (test/soak/plan.test.ts) is a unit test; the soaks start n8n.
				'<rootDir>/test/soak/(soak|queue)\\.test\\.ts',
				'<rootDir>/test/n8n/',
			],
		},
		{
			...common,
			displayName: 'unit-spec-literal',
			testMatch: ['operations', 'pagination', 'errors', 'listSearch', 'upsert', 'upsertRequests']
				.map((name) => `<rootDir>/test/node/${name}.test.ts`)
				.concat('<rootDir>/test/poll/poll.test.ts', '<rootDir>/test/trigger/catchUp.test.ts'),
			setupFiles: ['<rootDir>/test/helpers/specLiteral.setup.ts'],
		},
		{
			...common,
			displayName: 'e2e',
			testMatch: ['<rootDir>/test/e2e/**/*.test.ts', '<rootDir>/test/n8n/**/*.test.ts'],
			// The n8n contract is n8n's, whatever the service's profile: once per n8n line and in queue mode.
			testPathIgnorePatterns:
				process.env.E2E_PROFILE === 'spec-literal' ? ['<rootDir>/test/n8n/'] : [],
		},
		{
			...common,
			displayName: 'install',
			testMatch: ['<rootDir>/test/e2e/**/*.test.ts'],
			// What a form does with a file does not depend on how n8n got the package.
			testPathIgnorePatterns: ['<rootDir>/test/e2e/catalogForm.test.ts'],
			setupFiles: ['<rootDir>/test/helpers/install.setup.ts'],
		},
		{ ...common, displayName: 'ai', testMatch: ['<rootDir>/test/ai/**/*.test.ts'] },
		{ ...common, displayName: 'queue', testMatch: ['<rootDir>/test/queue/**/*.test.ts'] },
		{ ...common, displayName: 'registry', testMatch: ['<rootDir>/test/registry/**/*.test.ts'] },
		{ ...common, displayName: 'browser', testMatch: ['<rootDir>/test/browser/**/*.test.ts'] },
		{
			...common,
			displayName: 'reliability',
			testMatch: ['<rootDir>/test/reliability/**/*.test.ts'],
		},
		{ ...common, displayName: 'dev', testMatch: ['<rootDir>/test/dev/**/*.test.ts'] },
		{ ...common, displayName: 'polling', testMatch: ['<rootDir>/test/polling/**/*.test.ts'] },
		{ ...common, displayName: 'catchup', testMatch: ['<rootDir>/test/catchup/**/*.test.ts'] },
		{ ...common, displayName: 'lastword', testMatch: ['<rootDir>/test/lastword/**/*.test.ts'] },
		{ ...common, displayName: 'soak', testMatch: ['<rootDir>/test/soak/soak.test.ts'] },
		{
			...common,
			displayName: 'soak-spec-literal',
			testMatch: ['<rootDir>/test/soak/soak.test.ts'],
			setupFiles: ['<rootDir>/test/helpers/specLiteral.setup.ts'],
		},
		{ ...common, displayName: 'soak-queue', testMatch: ['<rootDir>/test/soak/queue.test.ts'] },
	],
};
