/**
 * The activity types the ERP room records, each with what it means
 * (docs/company.md lists them all). Their target is the instance.
 */
export const ERP_ACTIVITY = {
  'instance_module.requested': 'An install of an ERP module on an instance was requested',
  'instance_module.installed': 'An ERP module was installed on an instance',
  'instance_module.failed': 'An ERP module could not be installed on an instance',
  'instance_module.uninstall_requested': 'An uninstall of an ERP module from an instance was requested',
  'instance_module.uninstalled': 'An ERP module was uninstalled from an instance',
  'instance_module.uninstall_failed': 'An ERP module could not be uninstalled from an instance',
  'instance_user.invited': 'A company user was given access to an instance\'s ERP',
  'instance_user.created': 'An ERP user was created on an instance',
  'instance_user.updated': 'An ERP user who already existed on an instance got the role\'s access',
  'instance_user.failed': 'An ERP user could not be created on an instance (after the last attempt)'
} as const satisfies Record<`instance_module.${string}` | `instance_user.${string}`, string>
