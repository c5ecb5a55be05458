// Statuses known (docs/trigger.md, How the trigger remembers): per order, the statuses this n8n's deliveries and
// readings reported, each with when the order was in it. The claims in n8n's database say which changes ran, never in
// which order, so whether the order is known in a later status (the change is superseded) comes from here, and so does
// how far back a reading's undated change can lie. In queue mode that is the process the deliveries reach; the run on a
// worker gets its judgement with the item.
import { RecentMap } from '../shared/changes/state';

/** The order was in `status` at `at` (epoch ms, the service's clock): an event's created_at, or a reading's time. */
export interface Sighting {
	status: string;
	at: number;
	/** Read from the service (a list, an order): its state at the end of `at`, after any change made at that time. */
	read?: boolean;
	/** The claim of the change that brought the order to this status, where this n8n made one. */
	key?: string;
}

/**
 * What this n8n knows about one change of an order to a status (`judge`), and what ./changeKeys adds. It goes with the
 * item (CHANGE_KEY) to the run that claims it, wherever that runs.
 */
export interface Judgement {
	/** The order's latest known status, when it is later than the change and another: the change is superseded. */
	current?: string;
	/** Whether anything later than the change is known of the order. */
	later?: boolean;
	/**
	 * The latest second in which a change of the order ran since, by n8n's claims (./changeKeys, activityMark): it may
	 * have reached another process, or run before a restart. Its status is then asked (./superseded).
	 */
	laterRan?: number;
	/** When the order was last seen, in any status: what ran in that second or after may have moved it on since. */
	lastSeen?: number;
	/** Since when this process has known orders (it started): an older change may have a later one it never heard. */
	knownSince?: number;
	/** When the process that received or read the change judged it: a run that starts long after waited in a queue. */
	judgedAt?: number;
	/** When the order was last seen in another status before the change's stay: the change came after it. */
	after?: number;
	/** The claim of the change's stay, where this n8n knows it: the same change, reported again. */
	stay?: string;
	/** When the order was last seen in the same status before that (an earlier stay): marks of then are that stay's. */
	earlier?: number;
	/** A reading's change it cannot date: the earliest time it can have happened (./changeKeys). */
	window?: number;
}

const MAX_ORDERS = 10_000;
/** A stay in one status is kept as its first and last sightings, so this is about three stays. */
const MAX_SIGHTINGS = 6;

/** Whether a sighting comes after a change at `at` (a read at the same millisecond shows the state after it). */
const isAfter = (s: Sighting, at: number) => s.at > at || (s.at === at && s.read === true);

/** Per trigger node (scope), per order: its sightings, oldest first; the most recently noted order last. */
const known = new Map<string, RecentMap<Sighting[]>>();
/** When this process began: it knows nothing of what happened before (a restart forgets). */
const STARTED = Date.now();

/** Forgets the statuses known of `scope`'s orders. */
export const forgetStatuses = (scope: string) => void known.delete(scope);

/** Notes a sighting of `order`; a stay seen many times keeps its first and last sighting, and its claim. */
export function noteStatus(scope: string, order: string, sighting: Sighting): void {
	let orders = known.get(scope);
	if (!orders) known.set(scope, (orders = new RecentMap([], MAX_ORDERS)));
	const sightings = [...(orders.get(order) ?? [])];
	const at = sightings.findIndex(
		(s) => isAfter(s, sighting.at) && !(sighting.read && s.at === sighting.at),
	);
	sightings.splice(at < 0 ? sightings.length : at, 0, sighting);
	// Within a stay only its first and last sightings are kept; the first takes the stay's claim.
	const kept: Sighting[] = [];
	for (const [i, s] of sightings.entries()) {
		const first = s.status !== sightings[i - 1]?.status;
		if (!first) kept[kept.length - 1].key ??= s.key;
		if (first || s.status !== sightings[i + 1]?.status) kept.push({ ...s });
	}
	orders.set(order, kept.slice(-MAX_SIGHTINGS));
}

/** What is known of the change of `order` to `status` at `at`. */
export function judge(scope: string, order: string, status: string, at: number): Judgement {
	const sightings = known.get(scope)?.get(order) ?? [];
	let next = sightings.findIndex((s) => isAfter(s, at));
	if (next < 0) next = sightings.length;
	const judgement: Judgement = { later: next < sightings.length, knownSince: STARTED };
	// 1. Back from the change: its stay's earlier sightings, the last other status, the stay in it before that. Two
	// deliveries of one millisecond come in no known order, so a sighting in the status at the other status's
	// millisecond is no earlier stay: it may be this one, unless the stay is known from its later sightings (and two
	// stays of one millisecond are one change to the claims: ./changeKeys).
	let tied: string | undefined;
	for (let i = next - 1; i >= 0; i--) {
		const { status: was, key, at: seen } = sightings[i];
		if (was !== status) judgement.after ??= seen;
		else if (judgement.after === undefined) judgement.stay = key ?? judgement.stay;
		else if (seen === judgement.after) tied ??= key;
		else {
			judgement.earlier = seen;
			break;
		}
	}
	// 2. On from it: the rest of the stay.
	for (let i = next; i < sightings.length && sightings[i].status === status; i++)
		judgement.stay ??= sightings[i].key;
	judgement.stay ??= tied;
	const last = sightings[sightings.length - 1];
	if (last && isAfter(last, at) && last.status !== status) judgement.current = last.status;
	if (last) judgement.lastSeen = last.at;
	return judgement;
}
