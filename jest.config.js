// Three suites: `unit` (npm test: pure units plus nodes run through n8n-core against the in-process sandbox),
// `e2e` (a real n8n process) and `browser` (the n8n editor in Debian's chromium).
const transform = { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', diagnostics: false }] };
const common = { testEnvironment: 'node', transform, moduleFileExtensions: ['ts', 'js', 'json'] };

module.exports = {
	projects: [
		{
			...common,
			displayName: 'unit',
			testMatch: ['<rootDir>/test/**/*.test.ts'],
			testPathIgnorePatterns: ['<rootDir>/test/e2e/', '<rootDir>/test/browser/'],
		},
		{ ...common, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/**/*.test.ts'] },
		{ ...common, displayName: 'browser', testMatch: ['<rootDir>/test/browser/**/*.test.ts'] },
	],
};
