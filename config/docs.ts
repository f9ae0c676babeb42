/**
 * docs/configuration.md, made from the schema: `npm run docs:config` writes it,
 * and a test fails when the committed file differs from what this renders.
 */
import { writeFile } from 'node:fs/promises'
import { ENV_SECTIONS, variableInfo } from './schema.ts'

export const CONFIGURATION_DOC = new URL('../docs/configuration.md', import.meta.url)

const INTRO = `# Configuration

<!-- Generated from config/schema.ts by \`npm run docs:config\`: edit the schema, not this file. -->

Every variable is optional: with none set, \`npm start\` runs an embedded PostgreSQL under
\`DATA_DIR\` and serves http://localhost:3000. Variables come from the environment, over a
\`.env\` file in the working directory (\`.env.example\` lists them all).

## Checked at start

Every setting is checked before anything listens (the portal, \`npm run auth\`, and the
commands under \`ops/\` and \`database/\`). Each invalid one is reported on one line, and the
process exits with status 1:

\`\`\`
Invalid configuration: PORT="abc"; allowed: an integer from 1 to 65535; example: PORT=3000
\`\`\`

Secret values are never printed: the line says \`(hidden, N characters)\`, and a URL shows
its password as \`(hidden)\`. Besides each variable's own rule below, these rules hold
between values:

- \`ERP_IMAGE\` with each of \`ERP_VERSIONS\` must make an image reference; \`{version}\` is its
  only placeholder. A template without \`{version}\` is a fixed image: every instance runs it,
  whatever version is asked for, and a warning says so at start.
- \`AUTH_PORT\`, when set, differs from \`PORT\` when \`AUTH_SERVER_PROCESS=true\`; \`EMBEDDED_PG_PORT\`,
  when set, differs from both when the embedded PostgreSQL is used. A port set explicitly must be
  free at start (one line says which is taken); unset ports are chosen free by the service.
- URLs parse; \`BASE_URL\` and \`PORTAL_API_URL\` carry no query or fragment; each of
  \`CORS_ORIGINS\` is an origin.
- \`OAUTH_REFRESH_TOKEN_TTL_SECONDS\` exceeds \`OAUTH_ACCESS_TOKEN_TTL_SECONDS\`.
- \`PAYMENT_PROVIDERS\` names supported providers, each non-sandbox one with a secret in
  \`PAYMENT_WEBHOOK_SECRETS\`.
- With \`kubernetes\` in \`INSTANCE_BACKENDS\`, \`KUBECONFIG\` must be readable and name a current
  cluster (unset: the in-cluster service account, else the backend answers 503 until configured).
- \`npm run auth\` needs \`DATABASE_URL\`.

## Generated secrets

\`JWT_SECRET\` and \`ERP_CREDENTIALS_KEY\`, when unset, are generated on first start into
\`DATA_DIR/secrets/\` (mode 0600) and read from there afterwards. Replicas, or a \`DATA_DIR\` that is
not kept across restarts, need them set explicitly, with the same values everywhere.

\`ERP_CREDENTIALS_KEY\` keys the password of each instance's database role (HMAC-SHA256 of the
instance id). Before it existed those passwords were derived from \`JWT_SECRET\`. An installation
that already has instances and no \`ERP_CREDENTIALS_KEY\` gets, on its first start, that very
key written to \`DATA_DIR/secrets/erp-credentials-key\` (a line at start says so): every existing
instance keeps its password, and from then on rotating \`JWT_SECRET\` changes nothing for
them. Keep \`ERP_CREDENTIALS_KEY\` once instances exist: their containers and Kubernetes Secrets
hold passwords made with it.
`

function cell (text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ')
}

function code (text: string | undefined): string {
  if (text === undefined) return ''
  if (text === '') return '(empty)'
  return `\`${cell(text)}\``
}

export function renderConfigurationDoc (): string {
  const parts = [INTRO]
  for (const [section, variables] of Object.entries(ENV_SECTIONS)) {
    parts.push(`\n## ${section}\n\n| Variable | Default | Allowed | Example | Description |\n| --- | --- | --- | --- | --- |\n`)
    for (const name of Object.keys(variables)) {
      const info = variableInfo(name)
      const allowed = info.secret ? `${cell(info.allowed)} (secret)` : cell(info.allowed)
      parts.push(`| \`${name}\` | ${code(info.default)} | ${allowed} | ${code(info.example)} | ${cell(info.description)} |\n`)
    }
  }
  return parts.join('')
}

if (import.meta.main) {
  await writeFile(CONFIGURATION_DOC, renderConfigurationDoc())
  console.log('Wrote docs/configuration.md')
}
