"""Contract double of an Odoo server for the control plane's tests (not Odoo: a stand-in that keeps
Odoo's external JSON-RPC contract, with the shapes in odoo-external-api.json beside this file).

Run as the official image runs Odoo: `odoo [options]`.
  odoo -d <db> -i base --without-demo=all --stop-after-init   initialises <db> (admin/admin, uid 2), exits
  odoo [-c <config>] [-d <db>]                                 serves POST /jsonrpc and GET /web/health on 8069
As strict as Odoo where the control plane depends on it: a database that was not initialised fails
every call; authenticate checks the stored password; nothing but res.users `write`/`create` sets one.
State lives under the data_dir (the instance's /var/lib/odoo volume), so it survives restarts."""
import ast
import configparser
import hashlib
import json
import os
import secrets
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, 'odoo-external-api.json'), encoding='utf-8') as f:
    CONTRACT = json.load(f)
FAULTS = CONTRACT['fault']
LOCK = threading.Lock()
OPTIONS = {}
ADMIN_GROUPS = {2, 3}


def log(level, message):
    db = OPTIONS.get('db_name') or '?'
    stamp = time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime())
    print(f'{stamp},000 1 {level} {db} odoo.double: {message}', file=sys.stderr, flush=True)


class Fault(Exception):
    def __init__(self, kind, **fill):
        shape = FAULTS[kind]
        message = shape['message']
        for key, value in fill.items():
            message = message.replace('{' + key + '}', str(value))
        super().__init__(message)
        self.name = shape['name']
        self.message = message


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


def hash_password(password):
    salt = secrets.token_hex(8)
    return f'{salt}${hashlib.sha256((salt + password).encode()).hexdigest()}'


def password_matches(stored, password):
    salt, _, digest = (stored or '').partition('$')
    return bool(digest) and secrets.compare_digest(hashlib.sha256((salt + str(password)).encode()).hexdigest(), digest)


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
    initial = CONTRACT['initialDatabase']
    users = [dict(u, password=None) for u in initial['users']]
    for user in users:
        if user['id'] == initial['adminUid']:
            user['password'] = hash_password(initial['adminPassword'])
    state = {'users': users, 'groups': initial['groups'], 'modules': [dict(m) for m in initial['modules']], 'next_id': 100}
    save(db, state)
    log('INFO', f'init db {db}: base installed without demo data')


# --- the object service ---------------------------------------------------------------------------
def matches(record, domain):
    for term in domain:
        if not isinstance(term, list) or len(term) != 3:
            continue  # '&' and other prefix operators: implicit AND is all the control plane uses
        field, op, value = term
        have = record.get(field)
        test = {'=': lambda: have == value, '!=': lambda: have != value, 'in': lambda: have in value,
                'not in': lambda: have not in value, 'ilike': lambda: isinstance(have, str) and str(value).lower() in have.lower()}.get(op)
        if test is None:
            raise Fault('unknownMethod', model='domain', method=op)
        if not test():
            return False
    return True


def public(record, fields):
    shown = {k: v for k, v in record.items() if k != 'password'}
    if fields:
        shown = {k: shown.get(k, False) for k in ['id'] + [f for f in fields if f != 'id']}
    return shown


def apply_commands(current, commands):
    ids = list(current)
    for command in commands or []:
        code = command[0]
        if code == 4 and command[1] not in ids:
            ids.append(command[1])
        elif code == 3 and command[1] in ids:
            ids.remove(command[1])
        elif code == 6:
            ids = list(command[2])
        elif code == 5:
            ids = []
    return ids


def record_values(state, record, vals, model):
    for key, value in vals.items():
        if key == 'password':
            record['password'] = hash_password(value) if value else record.get('password')
        elif key == 'groups_id':
            known = {g['id'] for g in state['groups']}
            ids = apply_commands(record.get('groups_id', []), value)
            record['groups_id'] = [i for i in ids if i in known]
        elif key in ('login', 'name', 'email', 'active'):
            record[key] = value
        else:
            raise Fault('unknownModel', model=f'{model}.{key}')


def find(records, ids, model, uid):
    found = []
    for i in ids:
        match = next((r for r in records if r['id'] == i), None)
        if match is None:
            raise Fault('missingRecord', model=model, id=i, uid=uid)
        found.append(match)
    return found


def users_model(state, uid, method, args, kwargs, admin):
    users = state['users']
    if method == 'search_read':
        domain = args[0] if args else kwargs.get('domain', [])
        if not any(isinstance(t, list) and t[0] == 'active' for t in domain):
            domain = domain + [['active', '=', True]]
        rows = [public(u, kwargs.get('fields')) for u in users if matches(u, domain)]
        return rows[kwargs.get('offset', 0):][:kwargs.get('limit') or None]
    if method == 'read':
        return [public(u, kwargs.get('fields') or (args[1] if len(args) > 1 else None)) for u in find(users, args[0], 'res.users', uid)]
    if not admin:
        raise Fault('accessError', model='res.users', uid=uid)
    if method == 'create':
        many = args[0] if isinstance(args[0], list) else [args[0]]
        created = []
        for vals in many:
            if any(u['login'] == vals.get('login') for u in users):
                raise Fault('duplicateLogin')
            record = {'id': state['next_id'], 'login': '', 'name': '', 'email': False, 'active': True, 'groups_id': [1], 'password': None}
            state['next_id'] += 1
            record_values(state, record, vals, 'res.users')
            users.append(record)
            created.append(record['id'])
        return created if isinstance(args[0], list) else created[0]
    if method == 'write':
        for record in find(users, args[0], 'res.users', uid):
            if 'login' in args[1] and any(u['login'] == args[1]['login'] and u is not record for u in users):
                raise Fault('duplicateLogin')
            record_values(state, record, args[1], 'res.users')
        return True
    raise Fault('unknownMethod', model='res.users', method=method)


def install(state, module, seen):
    if module['state'] == 'installed' or module['name'] in seen:
        return
    seen.add(module['name'])
    for dependency in module.get('dependencies', []):
        found = next((m for m in state['modules'] if m['name'] == dependency), None)
        if found is None:
            raise Fault('missingDependency', module=module['name'], dependency=dependency)
        install(state, found, seen)
    module['state'] = 'installed'


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
    modules = state['modules']
    if method == 'search_read':
        domain = args[0] if args else kwargs.get('domain', [])
        return [public({k: v for k, v in m.items() if k != 'dependencies'}, kwargs.get('fields')) for m in modules if matches(m, domain)]
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
        return [0, added]
    if method in ('button_immediate_install', 'button_immediate_upgrade'):
        for module in find(modules, args[0], 'ir.module.module', uid):
            if method == 'button_immediate_install':
                install(state, module, set())
            elif module['state'] != 'installed':
                raise Fault('notInstalled', module=module['name'])
        return {'type': 'ir.actions.client', 'tag': 'reload'}
    raise Fault('unknownMethod', model='ir.module.module', method=method)


def object_service(method, args):
    if method != 'execute_kw':
        raise Fault('unknownMethod', model='object', method=method)
    db, uid, password, model, name = args[:5]
    call_args = args[5] if len(args) > 5 else []
    kwargs = args[6] if len(args) > 6 else {}
    with LOCK:
        state = load(db)
        user = next((u for u in state['users'] if u['id'] == uid and u['active']), None)
        if user is None or not password_matches(user.get('password'), password):
            raise Fault('accessDenied')
        admin = ADMIN_GROUPS <= set(user['groups_id'])
        if model == 'res.users':
            result = users_model(state, uid, name, call_args, kwargs, admin)
        elif model == 'ir.module.module':
            result = modules_model(state, uid, name, call_args, kwargs, admin)
        elif model == 'res.groups' and name == 'search_read':
            domain = call_args[0] if call_args else kwargs.get('domain', [])
            result = [public({k: v for k, v in g.items() if k != 'xml_id'}, kwargs.get('fields')) for g in state['groups'] if matches(g, domain)]
        elif model == 'ir.model.data' and name == 'search_read':
            data = [{'id': g['id'], 'module': g['xml_id'].split('.')[0], 'name': g['xml_id'].split('.')[1], 'model': 'res.groups',
                     'res_id': g['id'], 'complete_name': g['xml_id']} for g in state['groups']]
            domain = call_args[0] if call_args else kwargs.get('domain', [])
            result = [public(d, kwargs.get('fields')) for d in data if matches(d, domain)]
        elif model in ('res.users', 'res.groups', 'ir.module.module', 'ir.model.data'):
            raise Fault('unknownMethod', model=model, method=name)
        else:
            raise Fault('unknownModel', model=model)
        save(db, state)
        return result


def common_service(method, args):
    if method == 'version':
        return CONTRACT['response']['version']
    if method in ('authenticate', 'login'):
        db, login, password = args[:3]
        with LOCK:
            state = load(db)
        user = next((u for u in state['users'] if u['login'] == login and u['active']), None)
        return user['id'] if user is not None and password_matches(user.get('password'), password) else False
    raise Fault('unknownMethod', model='common', method=method)


def db_service(method, args):
    if OPTIONS.get('list_db', 'True').lower() in ('false', '0', 'no'):
        raise Fault('databaseManagerDisabled')
    if method == 'list':
        return sorted(f[:-5] for f in os.listdir(os.path.join(OPTIONS['data_dir'], 'erp-double')) if f.endswith('.json'))
    raise Fault('unknownMethod', model='db', method=method)


def dispatch(params):
    service, method, args = params.get('service'), params.get('method'), params.get('args', [])
    handler = {'common': common_service, 'object': object_service, 'db': db_service}.get(service)
    if handler is None:
        raise Fault('unknownMethod', model='service', method=service)
    return handler(method, args)


class Handler(BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    def answer(self, status, body, content_type='application/json'):
        data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header('Content-Type', content_type)
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path in ('/web/health', '/healthz'):
            self.answer(200, {'status': 'pass'})
        elif self.path.startswith('/web/database'):
            self.answer(404 if OPTIONS.get('list_db', 'True').lower() in ('false', '0') else 200, 'database manager', 'text/html')
        else:
            self.answer(404, 'not found', 'text/plain')

    def do_POST(self):
        if self.path != CONTRACT['endpoint']:
            self.answer(404, 'not found', 'text/plain')
            return
        request = json.loads(self.rfile.read(int(self.headers.get('Content-Length', '0'))) or b'{}')
        try:
            self.answer(200, {'jsonrpc': '2.0', 'id': request.get('id'), 'result': dispatch(request.get('params', {}))})
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
