import { createHmac, timingSafeEqual } from 'crypto';

// Webhook signature check (docs/api-contract.md row 13): HMAC-SHA256 keyed with the webhook secret (UTF-8) over
// the exact raw request bytes, sent as `X-Service-Signature: sha256=<64 hex digits>`. Pure: no n8n types, so it
// is tested on its own and the trigger only passes bytes, header and secret in.

/** Header name as Node.js exposes it in `req.headers` (always lower case, so matching is case-insensitive). */
export const SIGNATURE_HEADER = 'x-service-signature';

const PREFIX = 'sha256=';
const HEX_DIGEST_LENGTH = 64;

/** Why a delivery was refused, in words for the 401 body (never contains the secret or the expected digest). */
export const SIGNATURE_FAILURE_MESSAGES = {
	missing_secret: 'The receiver has no webhook secret configured, so no delivery can be verified',
	missing_body: 'The raw request body is not available, so the signature cannot be verified',
	missing_header: 'The X-Service-Signature header is missing',
	multiple_headers: 'More than one X-Service-Signature header was sent',
	bad_prefix: 'The X-Service-Signature header must start with "sha256="',
	bad_digest: 'The X-Service-Signature digest must be 64 hexadecimal digits',
	mismatch: 'The X-Service-Signature digest does not match the request body',
};

type SignatureFailure = keyof typeof SIGNATURE_FAILURE_MESSAGES;
type SignatureCheck = { valid: true } | { valid: false; reason: SignatureFailure };

const VALID: SignatureCheck = Object.freeze({ valid: true });
const fail = (reason: SignatureFailure): SignatureCheck => ({ valid: false, reason });

/**
 * Verifies `header` (`sha256=<hex>`, hex in either case) against HMAC-SHA256(secret, rawBody) and, while a secret
 * rotation is under way, against HMAC-SHA256(previousSecret, rawBody) too.
 * Fails closed: an empty secret or a missing body never verifies, and an empty previous secret is never used. Each
 * digest comparison is constant-time, and with a previous secret both are always made; the format checks before
 * them only look at the attacker's own header, never at an expected digest.
 */
export function verifySignature(
	rawBody: Buffer | undefined,
	header: string | string[] | undefined,
	secret: string | undefined,
	previousSecret?: string,
): SignatureCheck {
	if (typeof secret !== 'string' || secret === '') return fail('missing_secret');
	if (!Buffer.isBuffer(rawBody)) return fail('missing_body');
	if (Array.isArray(header)) {
		if (header.length !== 1)
			return fail(header.length === 0 ? 'missing_header' : 'multiple_headers');
		header = header[0];
	}
	if (typeof header !== 'string' || header === '') return fail('missing_header');
	if (!header.startsWith(PREFIX)) return fail('bad_prefix');

	const hex = header.slice(PREFIX.length);
	// Buffer.from(…, 'hex') stops at the first pair that is not two hex digits (either case), so 64 characters
	// decoding to exactly 32 bytes means all of them were hex. This also gives timingSafeEqual equal lengths.
	const provided = hex.length === HEX_DIGEST_LENGTH ? Buffer.from(hex, 'hex') : undefined;
	if (provided === undefined || provided.length !== HEX_DIGEST_LENGTH / 2)
		return fail('bad_digest');

	const matches = (key: string) =>
		timingSafeEqual(createHmac('sha256', key).update(rawBody).digest(), provided);
	const current = matches(secret);
	const previous =
		typeof previousSecret === 'string' && previousSecret !== '' && matches(previousSecret);
	return current || previous ? VALID : fail('mismatch');
}
