/**
 * What an instance's ERP server is given besides its image: the configuration file the official
 * image reads (ODOO_RC, /etc/odoo/odoo.conf) and the one-off command that initialises its
 * database. Odoo has no command-line option and no environment variable for the database
 * manager's master password (`admin_passwd`): it is only read from this file.
 */

/** Where the official image (and the contract double) read the server's configuration. */
export const ERP_CONFIG_PATH = '/etc/odoo/odoo.conf'

export interface ErpServerSetup {
  /** The database manager's master password (`admin_passwd`), generated per instance. */
  masterPassword: string
  /** The database has not been initialised yet: run `-i base` once before the server. */
  initialise: boolean
}

/** A value on one `key = value` line: no line breaks, and no `%`, which some config parsers expand. */
function configValue (key: string, value: string): string {
  if (/[\r\n%]/.test(value)) throw new TypeError(`${key} cannot hold line breaks or %`)
  return value
}

/**
 * The server's odoo.conf: the master password, this instance's database only (dbfilter), and no
 * database manager (`list_db = False`: /web/database answers nothing, so it is never reachable
 * through the instance's public URL). The database connection itself comes from the image's
 * HOST/PORT/USER/PASSWORD environment, as before.
 */
export function erpServerConfig (options: { masterPassword: string, database: string, addonsPath: string, dataDir: string }): string {
  const database = configValue('db_name', options.database)
  return [
    '[options]',
    `admin_passwd = ${configValue('admin_passwd', options.masterPassword)}`,
    `db_name = ${database}`,
    `dbfilter = ^${database.replaceAll(/[.^$*+?()[\]{}|\\]/g, '\\$&')}$`,
    'list_db = False',
    'proxy_mode = True',
    `addons_path = ${configValue('addons_path', options.addonsPath)}`,
    `data_dir = ${configValue('data_dir', options.dataDir)}`,
    ''
  ].join('\n')
}

/** The ERP's own initialisation of an empty database, without demo data, as a one-off run. */
export function erpInitialiseCommand (database: string): string[] {
  return ['odoo', '-d', database, '-i', 'base', '--without-demo=all', '--stop-after-init']
}

/**
 * The ERP's own neutralization of a database (Odoo 16 and later), as a one-off run: scheduled
 * actions and outgoing mail servers turned off, payment and delivery providers put in test mode,
 * and `database.is_neutralized` set. What a staging copy gets before it first starts.
 */
export function erpNeutralizeCommand (database: string): string[] {
  return ['odoo', 'neutralize', '-d', database]
}
