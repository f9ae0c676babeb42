/**
 * Label selectors as `?labelSelector=` carries them (k8s.io/apimachinery/pkg/labels):
 * `a=b`, `a==b`, `a!=b`, `a`, `!a`, `a in (x,y)`, `a notin (x,y)`, `a>1`, `a<1`; a comma is AND.
 * `!=` and `notin` also match objects without the label, as in Kubernetes.
 * Field selectors: `metadata.name` and `metadata.namespace` with `=`, `==`, `!=`.
 */
import { badRequest } from './status.ts'

export type Labels = Record<string, string>

interface Requirement { key: string, op: 'exists' | '!exists' | '=' | '!=' | 'in' | 'notin' | '>' | '<', values: string[] }

export type Matcher = (labels: Labels | undefined) => boolean

const KEY = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/
const VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/

export function isValidLabelKey (key: string): boolean {
  const name = key.includes('/') ? key.slice(key.indexOf('/') + 1) : key
  return KEY.test(key) && name.length <= 63 && key.length - name.length <= 254
}

export function isValidLabelValue (value: string): boolean {
  return value.length <= 63 && VALUE.test(value)
}

/** Splits on commas that are not inside `( … )`. */
function splitTopLevel (selector: string): string[] {
  const parts: string[] = []
  let depth = 0
  let current = ''
  for (const ch of selector) {
    if (ch === '(') depth++
    if (ch === ')') depth--
    if (ch === ',' && depth === 0) {
      parts.push(current)
      current = ''
    } else current += ch
  }
  parts.push(current)
  return parts.map((p) => p.trim())
}

function parseRequirement (text: string): Requirement {
  const fail = (why: string): never => { throw badRequest(`unable to parse requirement: ${why}: "${text}"`) }
  let match = /^!\s*([^\s!=<>(),]+)$/.exec(text)
  if (match !== null) return checked({ key: match[1] ?? '', op: '!exists', values: [] }, fail)
  match = /^([^\s!=<>(),]+)\s+(in|notin)\s*\(([^()]*)\)$/.exec(text)
  if (match !== null) {
    const values = (match[3] ?? '').split(',').map((v) => v.trim())
    if (values.length === 0 || (values.length === 1 && values[0] === '')) fail('for \'in\', \'notin\' operators, values set can\'t be empty')
    return checked({ key: match[1] ?? '', op: match[2] as 'in' | 'notin', values }, fail)
  }
  match = /^([^\s!=<>(),]+)\s*(==|=|!=|>|<)\s*([^\s!=<>(),]*)$/.exec(text)
  if (match !== null) {
    const op = match[2] === '==' ? '=' : match[2] as '=' | '!=' | '>' | '<'
    if ((op === '>' || op === '<') && !/^-?\d+$/.test(match[3] ?? '')) fail('for \'Gt\', \'Lt\' operators, the value must be an integer')
    return checked({ key: match[1] ?? '', op, values: [match[3] ?? ''] }, fail)
  }
  match = /^([^\s!=<>(),]+)$/.exec(text)
  if (match !== null) return checked({ key: match[1] ?? '', op: 'exists', values: [] }, fail)
  return fail('found unexpected token')
}

function checked (requirement: Requirement, fail: (why: string) => never): Requirement {
  if (!isValidLabelKey(requirement.key)) fail(`invalid label key "${requirement.key}"`)
  if (requirement.op !== '>' && requirement.op !== '<') {
    for (const value of requirement.values) if (!isValidLabelValue(value)) fail(`invalid label value "${value}"`)
  }
  return requirement
}

function matches (requirement: Requirement, labels: Labels): boolean {
  const has = Object.hasOwn(labels, requirement.key)
  const value = labels[requirement.key]
  switch (requirement.op) {
    case 'exists': return has
    case '!exists': return !has
    case '=': return has && value === requirement.values[0]
    case '!=': return !has || value !== requirement.values[0]
    case 'in': return has && requirement.values.includes(value ?? '')
    case 'notin': return !has || !requirement.values.includes(value ?? '')
    case '>': return has && /^-?\d+$/.test(value ?? '') && Number(value) > Number(requirement.values[0])
    case '<': return has && /^-?\d+$/.test(value ?? '') && Number(value) < Number(requirement.values[0])
  }
}

/** Parses `?labelSelector=`; an empty or absent selector matches everything. Throws a 400 Status. */
export function parseLabelSelector (selector: string | null | undefined): Matcher {
  if (selector === null || selector === undefined || selector.trim() === '') return () => true
  const requirements = splitTopLevel(selector).map(parseRequirement)
  return (labels) => requirements.every((r) => matches(r, labels ?? {}))
}

export interface LabelSelectorObject {
  matchLabels?: Labels
  matchExpressions?: Array<{ key: string, operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist', values?: string[] }>
}

/** A `spec.selector` object as a `?labelSelector=` string (how Scale reports it). */
export function selectorToString (selector: LabelSelectorObject | undefined): string {
  const parts = Object.entries(selector?.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`)
  for (const e of selector?.matchExpressions ?? []) {
    const values = `(${(e.values ?? []).join(',')})`
    parts.push(e.operator === 'In' ? `${e.key} in ${values}` : e.operator === 'NotIn' ? `${e.key} notin ${values}` : e.operator === 'Exists' ? e.key : `!${e.key}`)
  }
  return parts.join(',')
}

/** Does a `spec.selector` object select these labels? An empty selector selects nothing here (as for Deployments). */
export function selectorObjectMatches (selector: LabelSelectorObject | undefined, labels: Labels | undefined): boolean {
  const text = selectorToString(selector)
  return text !== '' && parseLabelSelector(text)(labels)
}

/** `?fieldSelector=`: the fields every resource supports. Others are a 400, as for most resources. */
export function parseFieldSelector (selector: string | null | undefined): (object: { metadata?: { name?: string, namespace?: string } }) => boolean {
  if (selector === null || selector === undefined || selector.trim() === '') return () => true
  const tests = splitTopLevel(selector).map((part) => {
    const match = /^([a-zA-Z.]+)\s*(==|=|!=)\s*(.*)$/.exec(part)
    if (match === null) throw badRequest(`invalid selector: '${selector}'; can't understand '${part}'`)
    const [, field = '', op, value = ''] = match
    if (field !== 'metadata.name' && field !== 'metadata.namespace') throw badRequest(`field label not supported: ${field}`)
    const get = (o: { metadata?: { name?: string, namespace?: string } }): string => (field === 'metadata.name' ? o.metadata?.name : o.metadata?.namespace) ?? ''
    return op === '!=' ? (o: Parameters<typeof get>[0]) => get(o) !== value : (o: Parameters<typeof get>[0]) => get(o) === value
  })
  return (object) => tests.every((test) => test(object))
}
