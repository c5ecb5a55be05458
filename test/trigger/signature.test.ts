// The webhook verifier on its own. Expected digests never come from the code under test: either fixed vectors
// computed by other tools (openssl, RFC 4231) or node:crypto called directly here.
import { createHmac } from 'crypto';

import { SIGNATURE_FAILURE_MESSAGES, verifySignature } from '../../nodes/shared/signature';

const SECRET = 'whsec_demo';

// `printf '%s' "$BODY" | openssl dgst -sha256 -hmac whsec_demo`. The body carries a JSON unicode escape
// (\u00e9) on purpose: re-serialising it would turn it into the UTF-8 character and change the bytes.
const OPENSSL_BODY = Buffer.from(
	'{"id":"evt_0001","type":"order.created","created_at":"2026-11-22T10:15:00.000Z","data":{"order_id":"ord_00001","store_id":"store_001","total":59.98,"currency":"EUR","status":"pending","items":[{"product_id":"prod_00001","name":"Caf\\u00e9 mug","quantity":2,"price":29.99}]}}',
	'utf8',
);
const OPENSSL_DIGEST = '45fdeb52534dffb0058a99f422f315e8610152d33c67989cb20812c38c9d8e7e';

const hmacHex = (key: string, body: Buffer | string) =>
	createHmac('sha256', key).update(body).digest('hex');
const header = (hex: string) => `sha256=${hex}`;

describe('verifySignature: genuine signatures', () => {
	it('accepts the openssl-computed vector', () => {
		expect(verifySignature(OPENSSL_BODY, header(OPENSSL_DIGEST), SECRET)).toEqual({ valid: true });
	});

	it('accepts RFC 4231 test case 2 (key "Jefe")', () => {
		const body = Buffer.from('what do ya want for nothing?');
		const digest = '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843';
		expect(verifySignature(body, header(digest), 'Jefe').valid).toBe(true);
	});

	it('accepts upper-case and mixed-case hex', () => {
		expect(verifySignature(OPENSSL_BODY, header(OPENSSL_DIGEST.toUpperCase()), SECRET).valid).toBe(
			true,
		);
		const mixed = [...OPENSSL_DIGEST].map((c, i) => (i % 2 ? c.toUpperCase() : c)).join('');
		expect(verifySignature(OPENSSL_BODY, header(mixed), SECRET).valid).toBe(true);
	});

	it('accepts a single-element header array (how some servers expose headers)', () => {
		expect(verifySignature(OPENSSL_BODY, [header(OPENSSL_DIGEST)], SECRET).valid).toBe(true);
	});

	it('keys the HMAC with the UTF-8 bytes of a non-ASCII secret and signs binary bodies byte for byte', () => {
		const secret = 'clé-ß-秘密';
		const body = Buffer.from([0x7b, 0x00, 0xff, 0xc3, 0x28, 0x7d]); // not even valid UTF-8
		const digest = createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex');
		expect(verifySignature(body, header(digest), secret).valid).toBe(true);
	});

	it('accepts a correctly signed empty body (rejecting it as an event is the trigger’s job)', () => {
		const empty = Buffer.alloc(0);
		expect(verifySignature(empty, header(hmacHex(SECRET, empty)), SECRET).valid).toBe(true);
	});
});

describe('verifySignature: forgeries', () => {
	const good = header(OPENSSL_DIGEST);

	it.each([
		['no header', undefined],
		['an empty header', ''],
		['an empty header array', []],
	])('rejects %s as missing_header', (_case, value) => {
		expect(verifySignature(OPENSSL_BODY, value as string | string[] | undefined, SECRET)).toEqual({
			valid: false,
			reason: 'missing_header',
		});
	});

	it('rejects two signature headers even if one is right', () => {
		expect(verifySignature(OPENSSL_BODY, [good, good], SECRET)).toEqual({
			valid: false,
			reason: 'multiple_headers',
		});
	});

	it('rejects a signature made with another secret', () => {
		const forged = header(hmacHex('whsec_attacker', OPENSSL_BODY));
		expect(verifySignature(OPENSSL_BODY, forged, SECRET)).toEqual({
			valid: false,
			reason: 'mismatch',
		});
	});

	it('rejects the body with any single byte changed', () => {
		for (const index of [0, 1, 17, Math.floor(OPENSSL_BODY.length / 2), OPENSSL_BODY.length - 1]) {
			const tampered = Buffer.from(OPENSSL_BODY);
			tampered[index] ^= 0x01;
			expect(verifySignature(tampered, good, SECRET)).toEqual({ valid: false, reason: 'mismatch' });
		}
	});

	it('rejects a body with one byte appended or removed', () => {
		expect(
			verifySignature(Buffer.concat([OPENSSL_BODY, Buffer.from(' ')]), good, SECRET).valid,
		).toBe(false);
		expect(verifySignature(OPENSSL_BODY.subarray(0, -1), good, SECRET).valid).toBe(false);
	});

	it('rejects a digest with one hex digit changed', () => {
		const flipped = (OPENSSL_DIGEST[0] === '4' ? '5' : '4') + OPENSSL_DIGEST.slice(1);
		expect(verifySignature(OPENSSL_BODY, header(flipped), SECRET)).toEqual({
			valid: false,
			reason: 'mismatch',
		});
	});

	it.each([
		['truncated to 63 digits', OPENSSL_DIGEST.slice(0, 63)],
		['truncated to 32 digits', OPENSSL_DIGEST.slice(0, 32)],
		['empty', ''],
		['65 digits', `${OPENSSL_DIGEST}0`],
		['a SHA-512-length digest', OPENSSL_DIGEST + OPENSSL_DIGEST],
		['non-hex digits', `${OPENSSL_DIGEST.slice(0, 62)}zz`],
		['non-hex first digit (Buffer.from would decode nothing)', `g${OPENSSL_DIGEST.slice(1)}`],
		['base64 instead of hex', Buffer.from(OPENSSL_DIGEST, 'hex').toString('base64')],
		['surrounding spaces', ` ${OPENSSL_DIGEST} `],
		[
			'a space in the middle (still 64 characters)',
			`${OPENSSL_DIGEST.slice(0, 31)} ${OPENSSL_DIGEST.slice(32)}`,
		],
		['a non-ASCII character (still 64 characters)', `${OPENSSL_DIGEST.slice(0, 63)}é`],
		['a 0x prefix (still 64 characters)', `0x${OPENSSL_DIGEST.slice(2)}`],
	])('rejects a digest that is %s as bad_digest', (_case, hex) => {
		expect(verifySignature(OPENSSL_BODY, header(hex), SECRET)).toEqual({
			valid: false,
			reason: 'bad_digest',
		});
	});

	it.each([
		['no prefix at all', OPENSSL_DIGEST],
		['sha1=', `sha1=${OPENSSL_DIGEST}`],
		['sha512=', `sha512=${OPENSSL_DIGEST}`],
		['upper-case SHA256=', `SHA256=${OPENSSL_DIGEST}`],
		['sha256: (colon)', `sha256:${OPENSSL_DIGEST}`],
		['a space before the prefix', ` sha256=${OPENSSL_DIGEST}`],
		['v1=', `v1=${OPENSSL_DIGEST}`],
	])('rejects %s as bad_prefix', (_case, value) => {
		expect(verifySignature(OPENSSL_BODY, value, SECRET)).toEqual({
			valid: false,
			reason: 'bad_prefix',
		});
	});

	describe('a signature of the re-serialised JSON when the raw bytes differ', () => {
		type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
		const sortKeys = (value: Json): Json =>
			Array.isArray(value)
				? value.map(sortKeys)
				: value !== null && typeof value === 'object'
					? Object.fromEntries(
							Object.keys(value)
								.sort()
								.map((key) => [key, sortKeys(value[key])]),
						)
					: value;
		const stringify = (raw: Buffer) => JSON.stringify(JSON.parse(raw.toString('utf8')));
		const canonical = (raw: Buffer) =>
			JSON.stringify(sortKeys(JSON.parse(raw.toString('utf8')) as Json));
		const variants: Array<[string, Buffer, (raw: Buffer) => string]> = [
			['unicode escapes', OPENSSL_BODY, stringify],
			[
				'whitespace',
				Buffer.from(
					'{ "id": "evt_2", "type": "order.updated",\n  "created_at": "2026-11-22T10:15:00.000Z", "data": {} }',
				),
				stringify,
			],
			[
				'key order (a sorted-keys canonicaliser)',
				Buffer.from(
					'{"type":"order.updated","id":"evt_3","data":{"b":1,"a":2},"created_at":"2026-11-22T10:15:00.000Z"}',
				),
				canonical,
			],
			[
				'number spelling',
				Buffer.from(
					'{"id":"evt_4","type":"payment.completed","created_at":"2026-11-22T10:15:00.000Z","data":{"amount":1.50}}',
				),
				stringify,
			],
		];

		it.each(variants)('(%s) does not verify the raw bytes', (_case, raw, reserialise) => {
			const reserialised = reserialise(raw);
			expect(Buffer.from(reserialised).equals(raw)).toBe(false); // the premise: the bytes really differ
			expect(verifySignature(raw, header(hmacHex(SECRET, reserialised)), SECRET)).toEqual({
				valid: false,
				reason: 'mismatch',
			});
			// …while the signature of the raw bytes does.
			expect(verifySignature(raw, header(hmacHex(SECRET, raw)), SECRET).valid).toBe(true);
		});
	});

	it('fails closed without a secret, even for a signature made with the empty key', () => {
		const emptyKeySignature = header(hmacHex('', OPENSSL_BODY));
		expect(verifySignature(OPENSSL_BODY, emptyKeySignature, '')).toEqual({
			valid: false,
			reason: 'missing_secret',
		});
		expect(verifySignature(OPENSSL_BODY, emptyKeySignature, undefined)).toEqual({
			valid: false,
			reason: 'missing_secret',
		});
	});

	it('fails closed without the raw body', () => {
		expect(verifySignature(undefined, header(hmacHex(SECRET, '')), SECRET)).toEqual({
			valid: false,
			reason: 'missing_body',
		});
	});

	it('explains every failure without revealing the secret or the expected digest', () => {
		for (const message of Object.values(SIGNATURE_FAILURE_MESSAGES)) {
			expect(message).not.toContain(SECRET);
			expect(message).not.toContain(OPENSSL_DIGEST);
			expect(message.length).toBeGreaterThan(10);
		}
	});
});

describe('verifySignature: secret rotation (previous secret)', () => {
	const body = Buffer.from('{"id":"evt_rot","type":"order.created"}');
	const hmac = (key: string) => `sha256=${createHmac('sha256', key).update(body).digest('hex')}`;
	const NEW = 'whsec_new_one';
	const OLD = 'whsec_old_one';

	it('accepts a delivery signed with either secret while the previous one is set', () => {
		expect(verifySignature(body, hmac(NEW), NEW, OLD)).toEqual({ valid: true });
		expect(verifySignature(body, hmac(OLD), NEW, OLD)).toEqual({ valid: true });
	});

	it('refuses the old secret once the previous one is cleared, and any third secret throughout', () => {
		expect(verifySignature(body, hmac(OLD), NEW)).toEqual({ valid: false, reason: 'mismatch' });
		expect(verifySignature(body, hmac(OLD), NEW, '')).toEqual({ valid: false, reason: 'mismatch' });
		expect(verifySignature(body, hmac('whsec_other'), NEW, OLD)).toEqual({
			valid: false,
			reason: 'mismatch',
		});
	});

	it('never uses an empty previous secret, and a previous secret alone verifies nothing', () => {
		expect(verifySignature(body, hmac(''), NEW, '')).toEqual({ valid: false, reason: 'mismatch' });
		expect(verifySignature(body, hmac(OLD), '', OLD)).toEqual({
			valid: false,
			reason: 'missing_secret',
		});
		expect(verifySignature(body, hmac(OLD), undefined, OLD)).toEqual({
			valid: false,
			reason: 'missing_secret',
		});
	});
});
