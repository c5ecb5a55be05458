// Webhook signature check (docs/api-contract.md row 13); pure (no n8n types), so it is tested on its own.
import { createHmac, timingSafeEqual } from 'crypto';

/** Header name as Node.js exposes it in `req.headers` (always lower case, so matching is case-insensitive). */
export const SIGNATURE_HEADER = 'x-service-signature';

const PREFIX = 'sha256=';

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

const fail = (reason: SignatureFailure): SignatureCheck => ({ valid: false, reason });

/**
 * Verifies `header` (`sha256=<hex>`, either case) against HMAC-SHA256 of rawBody by `secret`, and by `previousSecret`
 * during a rotation. Fails closed (no secret or body never verifies; an empty previous secret is never used). The
 * digest comparisons are constant-time and both always made; the format checks only look at the sender's header.
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
		if (header.length > 1) return fail('multiple_headers');
		header = header[0];
	}
	if (typeof header !== 'string' || header === '') return fail('missing_header');
	if (!header.startsWith(PREFIX)) return fail('bad_prefix');

	const hex = header.slice(PREFIX.length);
	// 64 hex digits: 32 bytes, the length timingSafeEqual needs the HMAC and this to share.
	if (!/^[0-9a-f]{64}$/i.test(hex)) return fail('bad_digest');
	const provided = Buffer.from(hex, 'hex');

	const matches = (key: string) =>
		timingSafeEqual(createHmac('sha256', key).update(rawBody).digest(), provided);
	const current = matches(secret);
	const previous =
		typeof previousSecret === 'string' && previousSecret !== '' && matches(previousSecret);
	return current || previous ? { valid: true } : fail('mismatch');
}
