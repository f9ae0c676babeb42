/**
 * Renders a Kustomize directory with `kubectl kustomize` (Debian's kubernetes-client; .ci/kubectl.sh
 * installs it) and validates each object against the Kubernetes OpenAPI schema of its kind with
 * kubernetes-models.
 */
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'
import { loadAllYaml } from '@kubernetes/client-node'

export const ROOT = fileURLToPath(new URL('../../', import.meta.url))

export interface RenderedObject {
  apiVersion: string
  kind: string
  metadata: { name: string, namespace?: string, labels?: Record<string, string> }
  [field: string]: unknown
}

export async function kustomize (directory: string): Promise<RenderedObject[]> {
  let stdout: string
  try {
    ({ stdout } = await promisify(execFile)('kubectl', ['kustomize', directory], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 }))
  } catch (error) {
    const problem = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'kubectl is not installed (Debian: apt-get install kubernetes-client)' : String((error as { stderr?: string }).stderr ?? error)
    throw new Error(`kubectl kustomize ${directory}: ${problem}`)
  }
  return loadAllYaml(stdout).filter((object): object is RenderedObject => object !== null && typeof object === 'object')
}

/** Schema errors of one object (empty when it is valid), e.g. `Deployment erp-portal: /spec must have required property 'selector'`. */
export async function schemaProblems (object: RenderedObject): Promise<string[]> {
  const [group, version] = object.apiVersion.includes('/') ? object.apiVersion.split('/') : ['', object.apiVersion]
  const label = `${object.kind} ${object.metadata.name}`
  let module: Record<string, new (data: unknown) => { validate: () => void }>
  try {
    module = await import(`kubernetes-models/${group === '' ? '' : `${group}/`}${version}/${object.kind}`)
  } catch {
    return [`${label}: no schema for ${object.apiVersion} ${object.kind}`]
  }
  const Model = module[object.kind]
  if (Model === undefined) return [`${label}: no model ${object.kind} in ${object.apiVersion}`]
  try {
    new Model(object).validate()
    return []
  } catch (error) {
    const errors = (error as { errors?: Array<{ instancePath: string, message?: string }> }).errors
    return errors === undefined ? [`${label}: ${(error as Error).message}`] : errors.map((e) => `${label}: ${e.instancePath || '/'} ${e.message ?? ''}`)
  }
}
