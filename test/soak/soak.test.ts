// The soak against the sandbox's profile (the contract's events, or the spec-literal ones: project soak-spec-literal,
// or E2E_PROFILE), in an n8n of its own: ./run.
import { PROFILE } from '../helpers/profile';
import { useEnvironment } from '../catchup/kit';
import { ORDERS, soak, SOAK_TIMEOUT_MS, STOPS } from './run';

jest.setTimeout(SOAK_TIMEOUT_MS);

useEnvironment('soak', `Soak summary (${PROFILE} events)`);

test(`soak (${PROFILE} events): ${ORDERS} orders, ${STOPS} stops of n8n (SIGTERM, SIGKILL), deliveries lost, doubled, held back and retried late, API fault spells: no event twice, no record more often than it changed, nothing lost, the last status item the order's or superseded, each payment once`, async () => {
	await soak(PROFILE);
});
