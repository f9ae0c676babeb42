"""The server side of the contract double (odoo_double.py): options and locks, one database's state
as a JSON file under the data_dir, `-i base`, the common, object and db services of /jsonrpc, the
time of an install or uninstall and the registry reload during which nothing answers, and the login cooldown."""
import json
import os
import uuid
import sys
import threading
import time

import odoo_double_models as models
import odoo_double_modules as modules
from odoo_double_models import Fault, hash_password, password_matches

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, 'odoo-external-api.json'), encoding='utf-8') as f:
    CONTRACT = json.load(f)
models.CONTRACT.update(CONTRACT)
LOCK = threading.Lock()
INSTALLING = threading.Lock()
OPTIONS = {}
# Until when the server answers nothing (a registry reload), and the login failures per address.
RELOAD = {'until': 0.0}
FAILURES = {}


def timing(name):
    """Seconds: <data_dir>/erp-double/timing.json (a test sets it on a running server), else the
    environment variable, else the fixture."""
    shape = CONTRACT['timing']
    try:
        with open(os.path.join(OPTIONS['data_dir'], 'erp-double', 'timing.json'), encoding='utf-8') as f:
            given = json.load(f).get(name + 'Seconds')
        if given is not None:
            return float(given)
    except (OSError, ValueError):
        pass
    return float(os.environ.get(shape[name + 'Env']) or shape[name + 'Seconds'])


def log(level, message):
    db = OPTIONS.get('db_name') or '?'
    stamp = time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime())
    print(f'{stamp},000 1 {level} {db} odoo.double: {message}', file=sys.stderr, flush=True)



# --- state: one JSON file per database under data_dir ------------------------------------------------
def state_file(db):
    if not db or '/' in db or db.startswith('.'):
        raise Fault('unknownDatabase', db=db)
    return os.path.join(OPTIONS['data_dir'], 'erp-double', f'{db}.json')


def load(db):
    path = state_file(db)
    if not os.path.exists(path):
        if db == OPTIONS.get('db_name'):
            raise Fault('notInitialised', db=db)
        raise Fault('unknownDatabase', db=db)
    with open(path, encoding='utf-8') as f:
        return json.load(f)


def save(db, state):
    path = state_file(db)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + '.tmp', 'w', encoding='utf-8') as f:
        json.dump(state, f)
    os.replace(path + '.tmp', path)


def initialise(db):
    """`-i base`: a new database knows only admin/admin (uid 2); an existing one keeps its data."""
    if os.path.exists(state_file(db)):
        log('INFO', f'database {db}: base is already installed, updating')
        return
    time.sleep(timing('init'))
    initial = CONTRACT['initialDatabase']
    users = [dict(u, password=None) for u in initial['users']]
    for user in users:
        if user['id'] == initial['adminUid']:
            user['password'] = hash_password(initial['adminPassword'])
    params = dict(CONTRACT['server']['defaultConfigParameters'], **{'database.uuid': str(uuid.uuid4()), 'database.secret': str(uuid.uuid4()),
                                                                   'database.create_date': time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime())})
    state = {'users': users, 'groups': initial['groups'], 'modules': [dict(m) for m in initial['modules']], 'params': params, 'next_id': 100,
             'crons': [dict(c) for c in models.INITIAL_CRONS], 'mail_servers': []}
    save(db, state)
    log('INFO', f'init db {db}: base installed without demo data')



def neutralize(db):
    """`odoo neutralize -d <db>`: as Odoo 16+, on an initialised database only. A test makes it fail
    with <data_dir>/erp-double/neutralize-fails (its text is the error) or ERP_DOUBLE_NEUTRALIZE_FAILS."""
    marker = os.path.join(OPTIONS['data_dir'], 'erp-double', 'neutralize-fails')
    reason = os.environ.get('ERP_DOUBLE_NEUTRALIZE_FAILS') or None
    if os.path.exists(marker):
        with open(marker, encoding='utf-8') as f:
            reason = f.read().strip() or 'neutralization failed'
    log('INFO', f'neutralizing database {db}')
    if reason:
        log('ERROR', reason)
        sys.exit(1)
    with LOCK:
        if not os.path.exists(state_file(db)):
            log('ERROR', f'database {db} does not exist or is not initialised')
            sys.exit(1)
        state = load(db)
        models.neutralize(state)
        save(db, state)
    log('INFO', 'Neutralization finished')


def upgrade(db, names):
    """`odoo -d <db> -u <modules> --stop-after-init`: the update of every installed module, as after a
    new version's image; records ERP_DOUBLE_VERSION (default the contract's server version) as the
    database's version. A test makes it fail with <data_dir>/erp-double/upgrade-fails or
    ERP_DOUBLE_UPGRADE_FAILS, whose text is `<module>: <reason>`: logged as Odoo logs a module that
    fails to update (its name on the `Loading module` line before `Failed to load registry`), exit 255,
    the database unchanged."""
    marker = os.path.join(OPTIONS['data_dir'], 'erp-double', 'upgrade-fails')
    reason = os.environ.get('ERP_DOUBLE_UPGRADE_FAILS') or None
    if os.path.exists(marker):
        with open(marker, encoding='utf-8') as f:
            reason = f.read().strip() or 'custom_module: upgrade failed'
    version = os.environ.get('ERP_DOUBLE_VERSION') or CONTRACT['server']['version']['server_version']
    log('INFO', f'updating modules {names} of database {db} to {version}')
    if reason:
        # As Odoo 17 fails an update (seen on the real server): the module is named on the INFO line
        # that starts loading it and in the traceback, not on the ERROR line; exit 255.
        module, _, why = reason.partition(':')
        module = module.strip()
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())
        for line in (f'{stamp},000 1 INFO {db} odoo.modules.loading: Loading module {module} (2/24)',
                     f'{stamp},000 1 WARNING {db} odoo.modules.loading: Transient module states were reset',
                     f'{stamp},000 1 ERROR {db} odoo.modules.registry: Failed to load registry',
                     'Traceback (most recent call last):',
                     f'odoo.tools.convert.ParseError: while parsing /mnt/extra-addons/{module}/views/views.xml:2, {why.strip() or "upgrade failed"}',
                     f'{stamp},000 1 CRITICAL {db} odoo.service.server: Failed to initialize database `{db}`.'):
            print(line, file=sys.stderr, flush=True)
        sys.exit(255)
    with LOCK:
        if not os.path.exists(state_file(db)):
            log('ERROR', f'database {db} does not exist or is not initialised')
            sys.exit(1)
        state = load(db)
        models.upgrade(state, version)
        save(db, state)
    log('INFO', 'Modules updated')


def run_module_change(db, kind, names):
    """An install's (or uninstall's, which takes as long) own time, then the registry reload during
    which nothing answers; one at a time."""
    with INSTALLING:
        total, reload = timing('install'), timing('reload')
        log('INFO', f'{"installing" if kind == "install" else "uninstalling"} {", ".join(names)}')
        time.sleep(max(0.0, total - reload))
        RELOAD['until'] = time.time() + reload
        log('INFO', 'loading the registry (the server answers nothing until it is loaded)')
        time.sleep(reload)
        with LOCK:
            state = load(db)
            (modules.finish_install if kind == 'install' else modules.finish_uninstall)(state, names)
            save(db, state)
        RELOAD['until'] = 0.0
        log('INFO', f'modules {kind}ed: {", ".join(names)}')


def object_service(method, args, source):
    if method != 'execute_kw':
        raise Fault('unknownMethod', model='object', method=method)
    db, uid, password, model, name = args[:5]
    call_args = args[5] if len(args) > 5 else []
    kwargs = args[6] if len(args) > 6 else {}
    work = None
    with LOCK:
        state = load(db)
        user = next((u for u in state['users'] if u['id'] == uid and u['active']), None)
        if user is None or not password_matches(user.get('password'), password):
            raise Fault('accessDenied')
        admin = models.is_admin(state, user)
        if model == 'res.users':
            result = models.users_model(state, uid, name, call_args, kwargs, admin)
        elif model == 'ir.module.module':
            result, work = modules.modules_model(state, uid, name, call_args, kwargs, admin, OPTIONS.get('addons_path', ''))
        elif model == 'res.groups' and name == 'search_read':
            domain = call_args[0] if call_args else kwargs.get('domain', [])
            result = [models.public(g, kwargs.get('fields')) for g in state['groups'] if models.matches(g, domain)]
        elif model == 'ir.model.data':
            result = models.data_model(state, name, call_args, kwargs)
        elif model == 'ir.config_parameter':
            result = models.config_model(state, uid, name, call_args, kwargs, admin)
        elif model == 'ir.cron':
            result = models.records_model(state, 'crons', model, uid, name, call_args, kwargs, admin, ('name', 'active'))
        elif model == 'ir.mail_server':
            result = models.records_model(state, 'mail_servers', model, uid, name, call_args, kwargs, admin, ('name', 'smtp_host', 'smtp_port', 'active'))
        elif model in ('res.groups',):
            raise Fault('unknownMethod', model=model, method=name)
        else:
            raise Fault('unknownModel', model=model)
        save(db, state)
    if work:
        run_module_change(db, *work)
    return result


def login_refused(source):
    """res_users.py _on_login_cooldown, with the default base.login_cooldown_after/_duration."""
    failures, last = FAILURES.get(source, (0, 0.0))
    cooldown = CONTRACT['loginCooldown']
    return failures >= cooldown['after'] and time.time() - last < cooldown['seconds']


def common_service(method, args, source):
    if method == 'version':
        return CONTRACT['response']['version']
    if method in ('authenticate', 'login'):
        db, login, password = args[:3]
        with LOCK:
            state = load(db)
            if login_refused(source):
                log('WARNING', f'Login attempt ignored for {source} (user {login!r}) on {db}: too many login failures')
                return False  # AccessDenied inside, false through the external API (service/common.py)
            user = next((u for u in state['users'] if u['login'] == login and u['active']), None)
            if user is not None and password_matches(user.get('password'), password):
                FAILURES.pop(source, None)
                return user['id']
            FAILURES[source] = (FAILURES.get(source, (0, 0.0))[0] + 1, time.time())
            return False
    raise Fault('unknownMethod', model='common', method=method)


def list_db_disabled():
    return OPTIONS.get('list_db', 'True').lower() in ('false', '0', 'no')


def db_service(method, args, source):
    if list_db_disabled():
        raise Fault('databaseManagerDisabled')
    if method == 'list':
        return sorted(f[:-5] for f in os.listdir(os.path.join(OPTIONS['data_dir'], 'erp-double')) if f.endswith('.json') and f != 'timing.json')
    raise Fault('unknownMethod', model='db', method=method)


def dispatch(params, source):
    service, method, args = params.get('service'), params.get('method'), params.get('args', [])
    handler = {'common': common_service, 'object': object_service, 'db': db_service}.get(service)
    if handler is None:
        raise Fault('unknownMethod', model='service', method=service)
    return handler(method, args, source)


def configured_database_missing():
    db = OPTIONS.get('db_name')
    return bool(db) and not os.path.exists(state_file(db))
