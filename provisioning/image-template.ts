/**
 * ERP_IMAGE: the image an instance runs, where `{version}` stands for the
 * instance's ERP version (`odoo:{version}` -> `odoo:17.0`). A template without
 * `{version}` is a fixed image: every instance runs it, whatever version was asked
 * for (a one-version deployment).
 */
export const VERSION_PLACEHOLDER = '{version}'

/** An image tag: what an ERP version must be to be put into a template. */
const TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/

const COMPONENT = '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*'
const DOMAIN = '(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*(?::[0-9]+)?/)?'
/** Docker's reference grammar: [registry[:port]/]path[:tag][@sha256:digest]. */
const REFERENCE = new RegExp(`^${DOMAIN}${COMPONENT}(?:/${COMPONENT})*(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(?:@sha256:[a-f0-9]{64})?$`)

/** The image for one ERP version; a fixed template is returned as it is. */
export function imageFor (template: string, erpVersion: string): string {
  if (!TAG.test(erpVersion)) throw new TypeError(`erpVersion must be an image tag, got ${JSON.stringify(erpVersion)}`)
  return template.replaceAll(VERSION_PLACEHOLDER, erpVersion)
}

export function isFixedImage (template: string): boolean {
  return !template.includes(VERSION_PLACEHOLDER)
}

/** Why `template` cannot make an image for each of `versions`; undefined when it can. */
export function imageTemplateProblem (template: string, versions: readonly string[]): string | undefined {
  const others = template.replaceAll(VERSION_PLACEHOLDER, '').match(/[{}]/)
  if (others !== null) return 'the only placeholder is {version}'
  for (const version of versions.length > 0 ? versions : ['17.0']) {
    if (!TAG.test(version)) return `the ERP version ${JSON.stringify(version)} is not an image tag`
    const image = template.replaceAll(VERSION_PLACEHOLDER, version)
    if (!REFERENCE.test(image)) return `${JSON.stringify(image)} is not an image reference`
  }
  return undefined
}
