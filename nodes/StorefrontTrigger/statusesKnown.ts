// Statuses known (docs/trigger.md, How the trigger remembers): per order, the statuses this n8n's deliveries and
// readings reported, each with when the order was in it. The claims in n8n's database say which changes ran, never in
// which order (a set of values), so two things come from here: the status before a change no event states (a return to
// a status is a change of its own), and whether the order is known in a later status (the change is superseded). In
// queue mode that is the process the deliveries reach; the run on a worker gets its judgement with the item.
import { RecentMap } from '../shared/changes/state';

/** The order was in `status` at `at` (epoch ms, the service's clock): an event's created_at, or a reading's time. */
export interface Sighting {
	status: string;
	at: number;
	/** The claim of the change that brought the order to this status, where this n8n made one. */
	key?: string;
	/** Read from the service (a list, an order): its state at the end of `at`, after any change made at that time. */
	read?: boolean;
}

/**
 * What this n8n knows about one change of an order to a status: from the sightings (`judge`), and where its claim is
 * made (./changeKeys). It goes with the item (CHANGE_KEY) to the run that claims it, wherever that runs.
 */
export interface Judgement {
	/** The order's status before the change: the latest other status known before it. */
	before?: string;
	/** The claim of the order's stay in that status, where this n8n already knows it: the same change, reported again. */
	stay?: string;
	/** The order's latest known status, when it is later than the change and another: the change is superseded. */
	current?: string;
	/** Whether anything later than the change is known of the order. */
	later?: boolean;
	/** Whether what gave `before` includes this process's own readings of the lists. */
	readsHere?: boolean;
	/** The how-manieth time the order makes this change, where it made it before (on hold, then processing, twice). */
	again?: number;
}

const MAX_ORDERS = 10_000;
/** A stay in one status is kept as its first and last sightings, so this is about three stays. */
const MAX_SIGHTINGS = 6;

/** Whether a sighting comes after a change at `at` (a read at the same millisecond shows the state after it). */
const isAfter = (s: Sighting, at: number) => s.at > at || (s.at === at && s.read === true);

/** Per trigger node (scope), per order: its sightings, oldest first; the most recently noted order last. */
const known = new Map<string, RecentMap<Sighting[]>>();
/** Trigger nodes this process received a delivery for, and those it reads the lists for. */
const hearing = new Set<string>();
const reading = new Map<string, number>();

/** Notes a sighting of `order`; a stay seen many times keeps its first and last sighting, and its claim. */
export function noteStatus(scope: string, order: string, sighting: Sighting): void {
	let orders = known.get(scope);
	if (!orders) known.set(scope, (orders = new RecentMap([], MAX_ORDERS)));
	const sightings = [...(orders.get(order) ?? [])];
	const at = sightings.findIndex(
		(s) => isAfter(s, sighting.at) && !(sighting.read && s.at === sighting.at),
	);
	sightings.splice(at < 0 ? sightings.length : at, 0, sighting);
	const kept: Sighting[] = [];
	for (const [i, s] of sightings.entries()) {
		if (s.status !== sightings[i - 1]?.status) {
			kept.push({ ...s });
			continue;
		}
		// Within a stay only its last sighting is kept too, with its own claim (a late sighting may split the stay);
		// the first takes the stay's claim.
		const stay = kept[kept.length - 1];
		stay.key ??= s.key;
		if (s.status !== sightings[i + 1]?.status) kept.push({ ...s });
	}
	orders.set(order, kept.slice(-MAX_SIGHTINGS));
}

/** What is known of the change of `order` to `status` at `at`. */
export function judge(scope: string, order: string, status: string, at: number): Judgement {
	const sightings = known.get(scope)?.get(order) ?? [];
	let next = sightings.findIndex((s) => isAfter(s, at));
	if (next < 0) next = sightings.length;
	const judgement: Judgement = { later: next < sightings.length };
	// 1. Back from the change: its stay's earlier sightings, then the status before.
	for (let i = next - 1; i >= 0; i--) {
		const { status: was, key } = sightings[i];
		if (was !== status) {
			judgement.before = was;
			break;
		}
		judgement.stay = key ?? judgement.stay;
	}
	// 2. On from it: the rest of the stay.
	for (let i = next; i < sightings.length && sightings[i].status === status; i++)
		judgement.stay ??= sightings[i].key;
	// 3. The latest known status.
	const last = sightings[sightings.length - 1];
	if (last && isAfter(last, at) && last.status !== status) judgement.current = last.status;
	return judgement;
}

/** The claims of the order's stays known before `at`, oldest first. */
export const claimsBefore = (scope: string, order: string, at: number) =>
	(known.get(scope)?.get(order) ?? []).filter((s) => s.at < at && s.key).map((s) => s.key!);

/** Notes that this process received a delivery for the trigger: its deliveries are in what it knows. */
export const noteHeard = (scope: string) => void hearing.add(scope);
export const hears = (scope: string) => hearing.has(scope);

/** A reader of the lists starts (1) or stops (-1) in this process: its readings are in what it knows. */
export function noteReader(scope: string, change: 1 | -1): void {
	const readers = (reading.get(scope) ?? 0) + change;
	if (readers > 0) reading.set(scope, readers);
	else reading.delete(scope);
}
export const readsHere = (scope: string) => reading.has(scope);
