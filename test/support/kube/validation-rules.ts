/**
 * Per-kind rules the OpenAPI schema does not express (k8s.io/kubernetes/pkg/apis/*\/validation),
 * the ones a provisioning backend can trip over, and the fields immutable on update.
 */
import { deepEqual, isObject, type Json, type JsonObject } from './merge.ts'
import { parseQuantity } from './quantity.ts'
import { selectorObjectMatches, type LabelSelectorObject } from './selectors.ts'
import type { StatusCause } from './status.ts'
import { dns1123Label, dns1123Subdomain, duplicate, forbiddenField, invalidValue, labelCauses, notFoundField, required } from './field-causes.ts'

const asObject = (value: Json | undefined): JsonObject => (isObject(value) ? value : {})
const asArray = (value: Json | undefined): Json[] => (Array.isArray(value) ? value : [])
const validPort = (p: unknown): boolean => typeof p === 'number' && Number.isInteger(p) && p >= 1 && p <= 65535
const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/
const ENV_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/

/** Required pod (anti-)affinity terms: a topology key, and a label selector with valid labels. */
function podAffinityCauses (affinity: JsonObject, at: string): StatusCause[] {
  const field = `${at}.requiredDuringSchedulingIgnoredDuringExecution`
  return asArray(affinity.requiredDuringSchedulingIgnoredDuringExecution).flatMap((t, i) => {
    const term = asObject(t)
    const causes: StatusCause[] = labelCauses(`${field}[${i}].labelSelector.matchLabels`, asObject(term.labelSelector).matchLabels)
    if (typeof term.topologyKey !== 'string' || term.topologyKey === '') causes.push(required(`${field}[${i}].topologyKey`, 'can not be empty'))
    return causes
  })
}

function podSpecCauses (spec: JsonObject, at: string, restartPolicies = ['Always']): StatusCause[] {
  const causes: StatusCause[] = []
  const volumes = asArray(spec.volumes).map((v) => asObject(v).name)
  volumes.forEach((name, i) => {
    causes.push(...dns1123Label(`${at}.volumes[${i}].name`, name))
    if (volumes.indexOf(name) !== i) causes.push(duplicate(`${at}.volumes[${i}].name`, name))
  })
  const containers = asArray(spec.containers)
  if (containers.length === 0) causes.push(required(`${at}.containers`))
  const names: unknown[] = []
  containers.forEach((c, i) => {
    const container = asObject(c)
    const field = `${at}.containers[${i}]`
    causes.push(...dns1123Label(`${field}.name`, container.name))
    if (names.includes(container.name)) causes.push(duplicate(`${field}.name`, container.name))
    names.push(container.name)
    if (typeof container.image !== 'string' || container.image.trim() === '') causes.push(required(`${field}.image`))
    asArray(container.ports).forEach((p, j) => {
      if (!validPort(asObject(p).containerPort)) causes.push(invalidValue(`${field}.ports[${j}].containerPort`, asObject(p).containerPort, 'must be between 1 and 65535, inclusive'))
    })
    asArray(container.env).forEach((e, j) => {
      const name = asObject(e).name
      if (typeof name !== 'string' || !ENV_NAME.test(name)) causes.push(invalidValue(`${field}.env[${j}].name`, name, 'a valid environment variable name must consist of alphabetic characters, digits, \'_\', \'-\', or \'.\', and must not start with a digit'))
    })
    asArray(container.volumeMounts).forEach((m, j) => {
      const name = asObject(m).name
      if (!volumes.includes(name ?? null)) causes.push(notFoundField(`${field}.volumeMounts[${j}].name`, name))
    })
  })
  causes.push(...podAffinityCauses(asObject(asObject(spec.affinity).podAffinity), `${at}.affinity.podAffinity`))
  if (spec.restartPolicy !== undefined && !restartPolicies.includes(String(spec.restartPolicy))) causes.push({ reason: 'FieldValueNotSupported', field: `${at}.restartPolicy`, message: `Unsupported value: ${JSON.stringify(spec.restartPolicy)}: supported values: ${restartPolicies.map((p) => JSON.stringify(p)).join(', ')}` })
  return causes
}

function dataKeys (object: JsonObject): StatusCause[] {
  const causes: StatusCause[] = []
  for (const field of ['data', 'stringData', 'binaryData']) {
    for (const key of Object.keys(asObject(object[field]))) {
      if (!CONFIG_KEY.test(key)) causes.push(invalidValue(`${field}[${key}]`, key, 'a valid config key must consist of alphanumeric characters, \'-\', \'_\' or \'.\''))
    }
  }
  return causes
}

export const KIND_RULES: Record<string, (object: JsonObject) => StatusCause[]> = {
  /** A bare pod (bare-pods.ts); the synthesised ones are never written. */
  Pod (object) {
    const spec = asObject(object.spec)
    const causes = podSpecCauses(spec, 'spec', ['Always', 'OnFailure', 'Never'])
    const deadline = spec.activeDeadlineSeconds
    if (deadline !== undefined && !(typeof deadline === 'number' && Number.isInteger(deadline) && deadline > 0)) causes.push(invalidValue('spec.activeDeadlineSeconds', deadline, 'must be between 1 and 2147483647, inclusive'))
    return causes
  },
  Deployment (object) {
    const spec = asObject(object.spec)
    const template = asObject(spec.template)
    const causes: StatusCause[] = []
    const selector = spec.selector as LabelSelectorObject | undefined
    const templateLabels = asObject(asObject(template.metadata).labels) as Record<string, string>
    if (selector === undefined || (Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0)) {
      causes.push(invalidValue('spec.selector', selector ?? null, 'empty selector is invalid for deployment'))
    } else if (!selectorObjectMatches(selector, templateLabels)) {
      causes.push(invalidValue('spec.template.metadata.labels', templateLabels, '`selector` does not match template `labels`'))
    }
    causes.push(...labelCauses('spec.template.metadata.labels', templateLabels))
    if (typeof spec.replicas === 'number' && spec.replicas < 0) causes.push(invalidValue('spec.replicas', spec.replicas, 'must be greater than or equal to 0'))
    const strategy = asObject(spec.strategy)
    if (strategy.type === 'Recreate' && strategy.rollingUpdate !== undefined) causes.push(forbiddenField('spec.strategy.rollingUpdate', 'may not be specified when strategy `type` is \'Recreate\''))
    if (strategy.type !== undefined && strategy.type !== 'Recreate' && strategy.type !== 'RollingUpdate') causes.push({ reason: 'FieldValueNotSupported', field: 'spec.strategy.type', message: `Unsupported value: ${JSON.stringify(strategy.type)}: supported values: "Recreate", "RollingUpdate"` })
    return [...causes, ...podSpecCauses(asObject(template.spec), 'spec.template.spec')]
  },
  Job (object) {
    const spec = asObject(object.spec)
    const template = asObject(spec.template)
    const causes: StatusCause[] = labelCauses('spec.template.metadata.labels', asObject(template.metadata).labels)
    for (const field of ['parallelism', 'completions', 'backoffLimit']) {
      if (typeof spec[field] === 'number' && (spec[field] as number) < 0) causes.push(invalidValue(`spec.${field}`, spec[field] ?? null, 'must be greater than or equal to 0'))
    }
    if (typeof spec.activeDeadlineSeconds === 'number' && spec.activeDeadlineSeconds <= 0) causes.push(invalidValue('spec.activeDeadlineSeconds', spec.activeDeadlineSeconds, 'must be greater than 0'))
    if (typeof spec.ttlSecondsAfterFinished === 'number' && spec.ttlSecondsAfterFinished < 0) causes.push(invalidValue('spec.ttlSecondsAfterFinished', spec.ttlSecondsAfterFinished, 'must be greater than or equal to 0'))
    if (!selectorObjectMatches(spec.selector as LabelSelectorObject, asObject(asObject(template.metadata).labels) as Record<string, string>)) {
      causes.push(invalidValue('spec.template.metadata.labels', asObject(template.metadata).labels ?? null, '`selector` does not match template `labels`'))
    }
    return [...causes, ...podSpecCauses(asObject(template.spec), 'spec.template.spec', ['OnFailure', 'Never'])]
  },
  Service (object) {
    const spec = asObject(object.spec)
    const causes: StatusCause[] = labelCauses('spec.selector', spec.selector)
    const ports = asArray(spec.ports)
    if (ports.length === 0 && spec.type !== 'ExternalName' && spec.clusterIP !== 'None') causes.push(required('spec.ports'))
    ports.forEach((p, i) => {
      const port = asObject(p)
      if (!validPort(port.port)) causes.push(invalidValue(`spec.ports[${i}].port`, port.port, 'must be between 1 and 65535, inclusive'))
      if (typeof port.targetPort === 'number' && !validPort(port.targetPort)) causes.push(invalidValue(`spec.ports[${i}].targetPort`, port.targetPort, 'must be between 1 and 65535, inclusive'))
      if (ports.length > 1 && (port.name === undefined || port.name === '')) causes.push(required(`spec.ports[${i}].name`))
    })
    return causes
  },
  Secret: dataKeys,
  ConfigMap: dataKeys,
  PersistentVolumeClaim (object) {
    const spec = asObject(object.spec)
    const causes: StatusCause[] = []
    const modes = asArray(spec.accessModes)
    if (modes.length === 0) causes.push(required('spec.accessModes', 'at least 1 access mode is required'))
    for (const mode of modes) if (!['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod'].includes(String(mode))) causes.push({ reason: 'FieldValueNotSupported', field: 'spec.accessModes', message: `Unsupported value: ${JSON.stringify(mode)}` })
    const storage = asObject(asObject(spec.resources).requests).storage
    if (storage === undefined) causes.push(required('spec.resources[storage]'))
    else if (!(parseQuantity(storage) > 0)) causes.push(invalidValue('spec.resources[storage]', storage, 'must be greater than zero'))
    return causes
  },
  Ingress (object) {
    const spec = asObject(object.spec)
    const causes: StatusCause[] = []
    const rules = asArray(spec.rules)
    if (rules.length === 0 && spec.defaultBackend === undefined) causes.push(invalidValue('spec', 'rules', 'either `defaultBackend` or `rules` must be specified'))
    rules.forEach((r, i) => {
      const rule = asObject(r)
      if (rule.host !== undefined) causes.push(...dns1123Subdomain(`spec.rules[${i}].host`, String(rule.host).replace(/^\*\./, '')))
      const paths = asArray(asObject(rule.http).paths)
      if (rule.http !== undefined && paths.length === 0) causes.push(required(`spec.rules[${i}].http.paths`))
      paths.forEach((p, j) => {
        const path = asObject(p)
        const field = `spec.rules[${i}].http.paths[${j}]`
        if (path.pathType !== 'ImplementationSpecific' && !String(path.path ?? '').startsWith('/')) causes.push(invalidValue(`${field}.path`, path.path ?? '', 'must be an absolute path'))
        const service = asObject(asObject(path.backend).service)
        const port = asObject(service.port)
        if (asObject(path.backend).service !== undefined && (port.number === undefined) === (port.name === undefined)) causes.push(required(`${field}.backend.service.port`, 'port name or number is required'))
        if (port.number !== undefined && !validPort(port.number)) causes.push(invalidValue(`${field}.backend.service.port.number`, port.number, 'must be between 1 and 65535, inclusive'))
      })
    })
    return causes
  }
}

export const UPDATE_RULES: Record<string, (object: JsonObject, before: JsonObject) => StatusCause[]> = {
  Deployment (object, before) {
    const selector = asObject(object.spec).selector
    return deepEqual(selector, asObject(before.spec).selector) ? [] : [invalidValue('spec.selector', selector, 'field is immutable')]
  },
  Job (object, before) {
    const spec = asObject(object.spec)
    const was = asObject(before.spec)
    return ['selector', 'template', 'completions'].filter((field) => !deepEqual(spec[field], was[field])).map((field) => invalidValue(`spec.${field}`, spec[field] ?? null, 'field is immutable'))
  },
  Service (object, before) {
    const ip = asObject(object.spec).clusterIP
    const was = asObject(before.spec).clusterIP
    return was === undefined || deepEqual(ip, was) ? [] : [invalidValue('spec.clusterIP', ip, 'field is immutable')]
  },
  PersistentVolumeClaim (object, before) {
    const { resources: now, ...rest } = asObject(object.spec)
    const { resources: was, ...restBefore } = asObject(before.spec)
    if (!deepEqual(rest, restBefore)) return [forbiddenField('spec', 'spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims')]
    const size = parseQuantity(asObject(asObject(now).requests).storage)
    return size < parseQuantity(asObject(asObject(was).requests).storage) ? [forbiddenField('spec.resources.requests.storage', 'field can not be less than previous value')] : []
  },
  Secret: immutableData,
  ConfigMap: immutableData
}

function immutableData (object: JsonObject, before: JsonObject): StatusCause[] {
  if (before.immutable !== true) return []
  if (object.immutable !== true) return [forbiddenField('immutable', 'field is immutable when `immutable` is set')]
  return deepEqual(object.data, before.data) && deepEqual(object.binaryData, before.binaryData) ? [] : [forbiddenField('data', 'field is immutable when `immutable` is set')]
}
