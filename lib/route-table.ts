import { relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { FastifyInstance, RouteOptions } from 'fastify'

export interface RegisteredRoute {
  method: RouteOptions['method']
  url: string
  schema: RouteOptions['schema']
  config: RouteOptions['config']
  /**
   * The app's own files on the call stack when the route was declared, nearest
   * first, relative to the app's root (e.g. `routes/api/users/index.ts`):
   * what the test that holds every route to its folder reads.
   */
  declaredIn: string[]
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route of the app: what the OpenAPI, access-matrix and route-placement tests walk. */
    routeTable: RegisteredRoute[]
  }
}

const APP_ROOT = fileURLToPath(new URL('../', import.meta.url))
const THIS_FILE = fileURLToPath(import.meta.url)
const STACK_FILE = /\(?(file:\/\/[^)]+?):\d+:\d+\)?$/

/** The app's files (not the libraries') on the current call stack, nearest first, without repeats. */
function appFilesOnStack (): string[] {
  const limit = Error.stackTraceLimit
  Error.stackTraceLimit = 64
  const stack = new Error().stack ?? ''
  Error.stackTraceLimit = limit
  const files: string[] = []
  for (const line of stack.split('\n')) {
    const url = STACK_FILE.exec(line.trim())?.[1]
    if (url === undefined) continue
    const path = fileURLToPath(url)
    if (path === THIS_FILE || path.includes('/node_modules/')) continue
    const file = relative(APP_ROOT, path)
    if (files.at(-1) !== file) files.push(file)
  }
  return files
}

/** Records every route registered from now on in `fastify.routeTable`; app.ts calls it before any plugin. */
export function recordRoutes (fastify: FastifyInstance): void {
  const routeTable: RegisteredRoute[] = []
  fastify.decorate('routeTable', routeTable)
  fastify.addHook('onRoute', (route) => {
    routeTable.push({ method: route.method, url: route.url, schema: route.schema, config: route.config, declaredIn: appFilesOnStack() })
  })
}
