// jest `setupFiles` of the unit-spec-literal project: its suites' sandboxes run the spec-literal profile.
process.env.SANDBOX_PROFILE = 'spec-literal';
