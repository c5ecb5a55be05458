/* eslint-disable @n8n/community-nodes/no-restricted-globals -- test code, not node code: the service's shape may come from the environment */
// The soak in n8n's queue mode (project soak-queue): main, two webhook processors and two workers on Postgres and
// Redis, a stop stopping every n8n process and a worker killed mid-stream (./run). The service's shape is drawn from
// the seed (SOAK_PROFILE names one), so CI's runs try both.
import { useEnvironment } from '../catchup/kit';
import { ORDERS, SEED, soak, SOAK_TIMEOUT_MS, STOPS } from './run';

const profile = process.env.SOAK_PROFILE ?? (SEED % 2 === 0 ? 'contract' : 'spec-literal');

jest.setTimeout(SOAK_TIMEOUT_MS);

useEnvironment('soak-queue', `Soak summary (queue mode, ${profile} events)`, {
	mode: 'queue',
	webhooks: 2,
	workers: 2,
});

test(`soak in queue mode (${profile} events): ${ORDERS} orders, ${STOPS} stops of every n8n process (SIGTERM, SIGKILL) and a worker killed mid-stream, deliveries lost, doubled (one copy to each webhook processor), held back and retried late, API fault spells: no event twice, no record more often than it changed, nothing lost, the last status item the order's or superseded, each payment once`, async () => {
	await soak(profile);
});
