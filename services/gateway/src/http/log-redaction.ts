/**
 * pino `redact` paths for every process that logs requests or messages (docs/authentication.md,
 * "Secrets in logs"): credentials in headers (all four schemes ride in `Authorization`), cookies, and any
 * logged object's key, token, private key, secret or WebAuthn credential fields, one and two levels deep.
 * Use with `censor: '[redacted]'`.
 */
export const LOG_REDACT_PATHS: string[] = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers["payment-receipt"]',
  'res.headers["set-cookie"]',
  ...['agentKey', 'walletPrivateKey', 'privateKey', 'settlerPrivateKey', 'token', 'sessionToken', 'secret', 'secretKey', 'password', 'credential', 'authorization', 'response', 'signature', 'apiKey'].flatMap((field) => [
    field,
    `*.${field}`,
    `*.*.${field}`,
  ]),
];
