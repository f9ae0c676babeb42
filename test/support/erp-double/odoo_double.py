"""Contract double of an Odoo server for the control plane's tests (not Odoo: a stand-in that keeps
Odoo's external JSON-RPC contract, with the shapes in odoo-external-api.json beside this file).

Run as the official image runs Odoo: `odoo [options]`.
  odoo -d <db> -i base --without-demo=all --stop-after-init   initialises <db> (admin/admin, uid 2), exits
  odoo [-c <config>] [-d <db>]                                 serves POST /jsonrpc and GET /web/health on 8069
As strict as Odoo where the control plane depends on it (real Odoo 17 measured):
- while the configured database is not initialised, /web/health and every /jsonrpc call (even
  common.version) answer an HTML 500 page;
- `-i base` and module installs take time (the fixture's `timing`, overridden by environment
  variables); during the last part of an install (the registry reload) the server answers nothing,
  health check included, until the reload ends;
- authenticate checks the stored password; after repeated failures from one address every login
  from it fails for a while, even with the right password (`loginCooldown`);
- with list_db = False the db service answers AccessDenied;
- groups, the default user template and module installs as odoo_double_models.py says.
State lives under the data_dir (the instance's /var/lib/odoo volume), so it survives restarts."""
import ast
import configparser
import json
import os
import secrets
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import odoo_double_models as models
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


# --- options, as odoo's command line and configuration file take them -------------------------------
FLAGS = {'--stop-after-init': 'stop_after_init', '--no-database-list': 'no_database_list', '--proxy-mode': 'proxy_mode'}
VALUED = {'-d': 'db_name', '--database': 'db_name', '-i': 'init', '--init': 'init', '-u': 'update', '--update': 'update',
          '-c': 'config', '--config': 'config', '--db_host': 'db_host', '--db_port': 'db_port', '--db_user': 'db_user',
          '--db_password': 'db_password', '-p': 'http_port', '--http-port': 'http_port', '--workers': 'workers',
          '--addons-path': 'addons_path', '--data-dir': 'data_dir', '--without-demo': 'without_demo',
          '--db-filter': 'dbfilter', '--max-cron-threads': 'max_cron_threads', '--log-level': 'log_level'}


def parse_options(argv):
    given = {}
    i = 0
    while i < len(argv):
        arg = argv[i]
        name, eq, inline = arg.partition('=')
        if name in FLAGS and not eq:
            given[FLAGS[name]] = True
        elif name in VALUED:
            if eq:
                given[VALUED[name]] = inline
            elif i + 1 < len(argv):
                i += 1
                given[VALUED[name]] = argv[i]
            else:
                sys.exit(f'odoo: error: {name} option requires 1 argument')
        else:
            sys.exit(f'Usage: odoo [options]\n\nodoo: error: no such option: {name}')
        i += 1
    config = {'data_dir': '/var/lib/odoo', 'http_port': '8069', 'list_db': 'True', 'admin_passwd': 'admin'}
    path = given.get('config') or os.environ.get('ODOO_RC')
    if path and os.path.exists(path):
        parser = configparser.RawConfigParser()
        parser.read(path)
        if parser.has_section('options'):
            config.update(dict(parser.items('options')))
    config.update(given)
    if config.get('no_database_list'):
        config['list_db'] = 'False'
    return config


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
    params = dict(initial['configParameters'], **{'database.uuid': secrets.token_hex(16), 'database.secret': secrets.token_hex(16)})
    state = {'users': users, 'groups': initial['groups'], 'modules': [dict(m) for m in initial['modules']], 'params': params, 'next_id': 100}
    save(db, state)
    log('INFO', f'init db {db}: base installed without demo data')


# --- the object service ---------------------------------------------------------------------------
def addon_manifests():
    found = {}
    for root in [p.strip() for p in OPTIONS.get('addons_path', '').split(',') if p.strip()]:
        if not os.path.isdir(root):
            continue
        for name in sorted(os.listdir(root)):
            manifest = os.path.join(root, name, '__manifest__.py')
            if not name.startswith('.') and os.path.isfile(manifest):
                with open(manifest, encoding='utf-8') as f:
                    found[name] = ast.literal_eval(f.read())
    return found


def modules_model(state, uid, method, args, kwargs, admin):
    """Returns (result, names to install after the call's lock is released)."""
    modules = state['modules']
    if method == 'search_read':
        domain = args[0] if args else kwargs.get('domain', [])
        return [models.public(m, kwargs.get('fields'), ('dependencies', 'groups')) for m in modules if models.matches(m, domain)], []
    if not admin:
        raise Fault('accessError', model='ir.module.module', uid=uid)
    if method == 'update_list':
        added = 0
        for name, manifest in addon_manifests().items():
            if not any(m['name'] == name for m in modules):
                modules.append({'id': state['next_id'], 'name': name, 'shortdesc': manifest.get('name', name),
                                'state': 'uninstalled', 'dependencies': list(manifest.get('depends', []))})
                state['next_id'] += 1
                added += 1
        return [0, added], []
    if method == 'button_immediate_install':
        plan = []
        for module in models.find(modules, args[0], 'ir.module.module', uid):
            models.install_plan(state, module, {m['name'] for m in plan}, plan)
        for module in plan:
            module['state'] = 'to install'  # committed before the registry is rebuilt, as Odoo does
        return {'type': 'ir.actions.client', 'tag': 'reload'}, [m['name'] for m in plan]
    if method == 'button_immediate_upgrade':
        for module in models.find(modules, args[0], 'ir.module.module', uid):
            if module['state'] != 'installed':
                raise Fault('notInstalled', module=module['name'])
        return {'type': 'ir.actions.client', 'tag': 'reload'}, []
    raise Fault('unknownMethod', model='ir.module.module', method=method)


def run_install(db, names):
    """The install's own time, then the registry reload during which nothing answers; one at a time."""
    with INSTALLING:
        total, reload = timing('install'), timing('reload')
        log('INFO', f'installing {", ".join(names)}')
        time.sleep(max(0.0, total - reload))
        RELOAD['until'] = time.time() + reload
        log('INFO', 'loading the registry (the server answers nothing until it is loaded)')
        time.sleep(reload)
        with LOCK:
            state = load(db)
            models.finish_install(state, names)
            save(db, state)
        RELOAD['until'] = 0.0
        log('INFO', f'modules installed: {", ".join(names)}')


def object_service(method, args, source):
    if method != 'execute_kw':
        raise Fault('unknownMethod', model='object', method=method)
    db, uid, password, model, name = args[:5]
    call_args = args[5] if len(args) > 5 else []
    kwargs = args[6] if len(args) > 6 else {}
    to_install = []
    with LOCK:
        state = load(db)
        user = next((u for u in state['users'] if u['id'] == uid and u['active']), None)
        if user is None or not password_matches(user.get('password'), password):
            raise Fault('accessDenied')
        admin = models.is_admin(state, user)
        if model == 'res.users':
            result = models.users_model(state, uid, name, call_args, kwargs, admin)
        elif model == 'ir.module.module':
            result, to_install = modules_model(state, uid, name, call_args, kwargs, admin)
        elif model == 'res.groups' and name == 'search_read':
            domain = call_args[0] if call_args else kwargs.get('domain', [])
            result = [models.public(g, kwargs.get('fields')) for g in state['groups'] if models.matches(g, domain)]
        elif model == 'ir.model.data':
            result = models.data_model(state, name, call_args, kwargs)
        elif model == 'ir.config_parameter':
            result = models.config_model(state, uid, name, call_args, kwargs, admin)
        elif model in ('res.groups',):
            raise Fault('unknownMethod', model=model, method=name)
        else:
            raise Fault('unknownModel', model=model)
        save(db, state)
    if to_install:
        run_install(db, to_install)
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


class Handler(BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    def answer(self, status, body, content_type='application/json'):
        data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header('Content-Type', content_type)
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def wait_for_reload(self):
        """A request that arrives while the registry reloads waits for it: nothing answers meanwhile."""
        while time.time() < RELOAD['until']:
            time.sleep(0.05)

    def uninitialised_page(self):
        page = CONTRACT['uninitialisedDatabasePage']
        self.answer(page['status'], page['body'], page['contentType'])

    def do_GET(self):
        self.wait_for_reload()
        if self.path in ('/web/health', '/healthz'):
            if configured_database_missing():
                self.uninitialised_page()
            else:
                self.answer(200, {'status': 'pass'})
        elif self.path.startswith('/web/database'):
            disabled = list_db_disabled()
            self.answer(200, CONTRACT['databaseManagerDisabledPage'] if disabled else 'database manager', 'text/html')
        else:
            self.answer(404, 'not found', 'text/plain')

    def do_POST(self):
        request = json.loads(self.rfile.read(int(self.headers.get('Content-Length', '0'))) or b'{}')
        self.wait_for_reload()
        if self.path != CONTRACT['endpoint']:
            self.answer(404, 'not found', 'text/plain')
            return
        if configured_database_missing():
            self.uninitialised_page()
            return
        try:
            self.answer(200, {'jsonrpc': '2.0', 'id': request.get('id'), 'result': dispatch(request.get('params', {}), self.client_address[0])})
        except Exception as error:  # every failure is a JSON-RPC fault, as Odoo answers it
            fault = error if isinstance(error, Fault) else None
            name = fault.name if fault else f'builtins.{type(error).__name__}'
            message = fault.message if fault else str(error)
            data = {'name': name, 'debug': f'Traceback (most recent call last):\n{name}: {message}\n', 'message': message, 'arguments': [message], 'context': {}}
            self.answer(200, {'jsonrpc': '2.0', 'id': request.get('id'), 'error': {'code': 200, 'message': 'Odoo Server Error', 'data': data}})

    def log_message(self, format, *args):
        log('INFO', f'{self.address_string()} "{self.requestline}" {args[1] if len(args) > 1 else ""}')


def main(argv):
    OPTIONS.update(parse_options(argv))
    if OPTIONS.get('init'):
        if not OPTIONS.get('db_name'):
            sys.exit('odoo: error: -i needs a database (-d)')
        initialise(OPTIONS['db_name'])
    if OPTIONS.get('stop_after_init'):
        log('INFO', 'Stopping gracefully (--stop-after-init)')
        return
    server = ThreadingHTTPServer(('0.0.0.0', int(OPTIONS['http_port'])), Handler)
    server.daemon_threads = True

    def stop(signum, frame):
        log('INFO', 'Initiating shutdown')
        threading.Thread(target=server.shutdown).start()
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    log('INFO', f'HTTP service (werkzeug) running on 0.0.0.0:{OPTIONS["http_port"]}')
    server.serve_forever()
    log('INFO', 'stopped')


if __name__ == '__main__':
    main(sys.argv[1:])
