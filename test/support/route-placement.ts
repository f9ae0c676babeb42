import { posix } from 'node:path'

/**
 * The rule that lets a reader find, from a URL alone, the file that serves it:
 * the folder is the URL prefix. A route declared in `routes/api/users/invitations.ts`
 * must serve `/api/users` or a URL below it; `routes/api/login.ts` serves
 * `/api/...`; `routes/.well-known/jwks.ts` serves `/.well-known/...`.
 * (app.ts turns on @fastify/autoload's directory prefixes, so a route file
 * declares its paths relative to its folder.)
 */
export interface DeclaredRoute {
  method: string | string[]
  url: string
  /** The app's files on the stack when the route was declared, nearest first (see plugins/app/http). */
  declaredIn: string[]
}

/** Routes a library declares, registered by a plugin rather than a route file. */
export const LIBRARY_ROUTES: Array<{ test: (url: string) => boolean, why: string }> = [
  { test: (url) => url === '/docs' || url.startsWith('/docs/'), why: 'Swagger UI, served by @fastify/swagger-ui (plugins/external/swagger.ts)' },
  { test: (url) => url === '*', why: 'OPTIONS * for CORS preflights, answered by @fastify/cors (plugins/external/cors.ts)' }
]

/** The folder prefix of a route file: `routes/api/users/index.ts` -> `/api/users`; `routes/api/login.ts` -> `/api`. */
export function folderPrefix (file: string): string {
  const folder = posix.dirname(file.split('\\').join('/')).replace(/^routes\/?/, '')
  return folder === '' ? '' : `/${folder}`
}

/** Why a route breaks the rule, or undefined when it keeps it. */
export function misplacement (route: DeclaredRoute): string | undefined {
  const label = `${[route.method].flat().join(',')} ${route.url}`
  const file = route.declaredIn.find((path) => path.startsWith('routes/'))
  if (file === undefined) {
    if (LIBRARY_ROUTES.some((library) => library.test(route.url))) return undefined
    return `${label} is declared outside routes/ (in ${route.declaredIn[0] ?? 'a library'}): give it a route file in routes${route.url.replace(/\/[^/]*$/, '') || '/'}`
  }
  const prefix = folderPrefix(file)
  if (route.url === prefix || route.url.startsWith(`${prefix}/`)) return undefined
  return `${label} is declared in ${file}, whose folder serves ${prefix || '/'}: move it to the folder of its URL`
}
