/** The portal itself: listening, its database, secrets, rate limits, mail, payments, support staff, demo data. */
import { Type, type TSchema } from 'typebox'
import { port, optionalPort, seconds, atLeastOne, httpUrl, postgresUrl, secret } from '../schema-kinds.ts'

export const SERVICE_SECTIONS = {
  HTTP: {
    PORT: port(3000, 'Port the portal listens on.'),
    HOST: Type.String({
      pattern: '^(\\[?[0-9A-Fa-f:.]+\\]?|[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?)$',
      allowed: 'a host name or IP address', default: 'localhost',
      description: 'Interface to bind: `localhost` (IPv4 and IPv6 loopback), or `0.0.0.0` in a container.', examples: ['0.0.0.0']
    }),
    BASE_URL: httpUrl('The one public origin of the portal: API, docs, OAuth issuer and MCP endpoint. Default `http://localhost:<PORT>`.', 'https://portal.example.com'),
    PORTAL_APP_URL: httpUrl('Base address of the portal front end, used in every link an e-mail carries (`/invitation/accept?token=…`, `/password/reset?token=…`, `/email/confirm?token=…`) ' +
      'and in the login page\'s "Forgot password?" link (`/password/forgot`): the front end serves those paths. Default: BASE_URL, where the service serves small pages of its own at them.',
    'https://app.example.com'),
    PRODUCT_NAME: Type.Optional(Type.String({
      minLength: 1, maxLength: 80, pattern: '^[^<>\\r\\n]+$', allowed: 'up to 80 characters, no line breaks or angle brackets',
      description: 'The product\'s name on the login, consent and account pages and in e-mails. Default: the display name of MAIL_FROM, else `ERP Portal`.',
      examples: ['Acme Cloud ERP']
    })),
    CORS_ORIGINS: Type.String({
      default: '', allowed: 'comma-separated origins such as https://app.example.com (no path)',
      description: "Extra browser origins allowed by CORS (BASE_URL's origin always is).", examples: ['https://app.example.com,http://localhost:5173']
    }),
    BODY_LIMIT: Type.Integer({ minimum: 1024, maximum: 104_857_600, default: 1_048_576, description: 'Largest accepted request body, in bytes.' }),
    SHUTDOWN_DELAY_SECONDS: seconds(0, 120, 5, 'On SIGTERM, how long the portal and the auth server keep serving with /health/ready answering 503 before they stop ' +
      'accepting: the time a load balancer (Kubernetes: the endpoints change reaching every proxy) needs to stop sending. Then in-flight requests finish. ' +
      'Keep it under terminationGracePeriodSeconds minus 15. SIGINT (Ctrl-C) skips it.'),
    TRUST_PROXY: Type.Boolean({ default: false, description: 'Set to true behind a reverse proxy or ingress, so client IPs come from X-Forwarded-For.' }),
    LOG_LEVEL: Type.Union(
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((level) => Type.Literal(level)),
      { default: 'info', description: 'Least severe level of the log lines written (JSON on stdout). At info, one access line per request; successful health probes, status polls and scrapes log at debug.', examples: ['debug'] }
    )
  },
  Database: {
    DATABASE_URL: postgresUrl('External PostgreSQL. When unset, an embedded PostgreSQL keeps its data in DATA_DIR/postgres.',
      'postgres://user:password@db.example.com:5432/erp_portal'),
    DATA_DIR: Type.String({ minLength: 1, default: './data', description: 'Where generated secrets, the embedded PostgreSQL, mail files and addons live.', examples: ['/var/lib/erp-portal'] }),
    EMBEDDED_PG_PORT: optionalPort(54329, 'Port of the embedded PostgreSQL (only without DATABASE_URL). Unset: 54329 when free, else any free port; ' +
      'the port chosen is kept in DATA_DIR/postgres-port for the next start. A port given here that is taken stops the start.'),
    DB_POOL_MAX: Type.Integer({ minimum: 1, maximum: 200, default: 10, description: 'Connections per process to the service database.' })
  },
  Secrets: {
    JWT_SECRET: secret('Signs portal bearer tokens. When unset, one is generated into DATA_DIR/secrets/jwt-secret. Replicas must share it: set it explicitly when running several.'),
    ERP_CREDENTIALS_KEY: Type.Optional(Type.String({
      pattern: '^[A-Za-z0-9+/_-]{43,}={0,2}$', secret: true,
      allowed: 'at least 32 random bytes in base64 or base64url (e.g. `openssl rand -base64 32`)',
      description: 'Key of the instances\' generated credentials: the passwords of their database roles (HMAC) and the sealed (AES-256-GCM) passwords of each ERP\'s administrator and database manager. When unset, one is generated into DATA_DIR/secrets/erp-credentials-key; ' +
        'an installation that already has instances gets the key their passwords were derived from (from JWT_SECRET), so they do not change. ' +
        'Rotating JWT_SECRET does not change them. Replicas must share it. Keep it once instances exist: their containers and Kubernetes Secrets hold passwords made with it.',
      examples: ['$(openssl rand -base64 32)']
    })),
    TOKEN_TTL_SECONDS: seconds(60, 2_592_000, 43_200, 'Lifetime of a portal bearer token.')
  },
  'Rate limits': {
    LOGIN_LIMIT_PER_IP: atLeastOne(20, 'Login attempts per minute per client IP (counters are shared by all replicas through PostgreSQL).'),
    LOGIN_LIMIT_PER_ACCOUNT: atLeastOne(10, 'Login attempts per 15 minutes per account.'),
    SIGNUP_LIMIT_PER_IP: atLeastOne(10, 'Signups per hour per client IP.'),
    SIGNUP_LIMIT_PER_ACCOUNT: atLeastOne(5, 'Signups per hour per e-mail address.'),
    PASSWORD_RESET_LIMIT_PER_IP: atLeastOne(10, 'Password reset requests per hour per client IP; new passwords sent with a reset link are held to as many per hour per IP and per link.'),
    PASSWORD_RESET_LIMIT_PER_ACCOUNT: atLeastOne(3, 'Password reset requests per hour per e-mail address.'),
    TWO_FACTOR_LIMIT_PER_IP: atLeastOne(20, 'Second-step login answers (codes, enrolments) per minute per client IP.')
  },
  'Two-factor authentication': {
    TWO_FACTOR_CHALLENGE_TTL_SECONDS: seconds(60, 900, 300, 'How long the second step of a login (a code, or a first enrolment) may take after the right password.'),
    TWO_FACTOR_MAX_ATTEMPTS: Type.Integer({ minimum: 1, maximum: 20, default: 5, description: 'Wrong codes one login challenge takes before it is spent (the person signs in again).' })
  },
  'E-mail and invitations': {
    SMTP_URL: Type.Optional(Type.String({
      pattern: '^smtps?://', allowed: 'an smtp:// or smtps:// URL',
      description: 'SMTP server. When unset, each message is written as an .eml file under DATA_DIR/mail and invitation links are logged.',
      examples: ['smtp://user:password@smtp.example.com:587']
    })),
    MAIL_FROM: Type.String({
      pattern: '^[^<>]*<[^<>@\\s]+@[^<>@\\s]+>$|^[^<>@\\s]+@[^<>@\\s]+$', allowed: 'an e-mail address, optionally as `Name <address>`',
      default: 'ERP Portal <no-reply@localhost>', description: 'Sender of every message; its name is the product name in mails.', examples: ['ERP Portal <no-reply@example.com>']
    }),
    MAIL_MAX_ATTEMPTS: Type.Integer({ minimum: 1, maximum: 50, default: 10, description: 'Delivery attempts of one e-mail before it is failed for good.' }),
    MAIL_RETRY_SECONDS: seconds(1, 3600, 30, 'First retry delay of a failed e-mail; doubled on each further failure (plus jitter), at most an hour.'),
    INVITATION_TTL_DAYS: Type.Integer({ minimum: 1, maximum: 90, default: 7, description: 'How long an invitation can be accepted.' }),
    INVITATION_RESEND_LIMIT: atLeastOne(3, 'Resends per invitation per hour.'),
    PASSWORD_RESET_TTL_MINUTES: Type.Integer({ minimum: 5, maximum: 1440, default: 30, description: 'How long a password reset link works (once).' }),
    EMAIL_CHANGE_TTL_MINUTES: Type.Integer({ minimum: 5, maximum: 1440, default: 60, description: 'How long the link confirming a new e-mail address works (once).' })
  },
  'Payments and trials': {
    PAYMENT_PROVIDERS: Type.Optional(Type.String({
      pattern: '^[A-Za-z0-9_, -]*$', allowed: 'provider names, comma-separated (supported: sandbox), or empty for none',
      description: 'Enabled payment providers. Default: `sandbox` with the embedded database, none with DATABASE_URL. ' +
        'The sandbox lets administrators mark their own payments paid: never in production.',
      examples: ['sandbox']
    })),
    PAYMENT_WEBHOOK_SECRETS: Type.String({
      default: '', secret: true, allowed: 'provider:secret pairs, comma-separated, each secret at least 16 characters',
      description: 'Webhook secrets of the payment providers. The sandbox falls back to a key derived from JWT_SECRET.',
      examples: ['sandbox:change-me-to-a-long-secret']
    }),
    TRIAL_SWEEP_SECONDS: seconds(5, 86_400, 300, 'How often expired trials are ended.')
  },
  'Support staff': {
    SUPPORT_API_TOKEN: secret('Turns on the /api/support/... operator routes (header X-Support-Token).')
  },
  'Demo data': {
    SEED_DEMO: Type.Boolean({ default: true, description: 'Creates a demo company and its admin on first start (idempotent).' }),
    DEMO_COMPANY: Type.String({ minLength: 1, default: 'Demo Company', description: 'Name of the demo company.' }),
    DEMO_SUBDOMAIN: Type.String({
      pattern: '^[a-z0-9](?:[a-z0-9-]{1,38}[a-z0-9])$', allowed: '3 to 40 lowercase letters, digits and inner hyphens',
      default: 'demo', description: 'Subdomain of the demo company.', examples: ['acme']
    }),
    DEMO_ADMIN_EMAIL: Type.String({ format: 'email', allowed: 'an e-mail address', default: 'admin@demo.example.com', description: 'Login of the demo admin.' }),
    DEMO_ADMIN_PASSWORD: Type.Optional(Type.String({
      minLength: 10, secret: true, allowed: 'at least 10 characters',
      description: 'Password of the demo admin. When unset, one is generated and printed once, on the first start.', examples: ['a-long-demo-password']
    }))
  }
} satisfies Record<string, Record<string, TSchema>>
