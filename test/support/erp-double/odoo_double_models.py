"""The models of the contract double (odoo_double.py): res.users, res.groups, ir.module.module,
ir.model.data and ir.config_parameter, on one database's state (a dict). Not Odoo: the behaviour the
control plane meets, with Odoo 17's rules where it depends on them:
- groups imply groups (implied_ids, transitively): a user given a group gets what it implies;
- a user created without groups_id gets the groups of the template user base.default_user; one
  created with groups_id gets those (and what they imply) only (res_users.py _default_groups);
- a module's install adds its groups (odoo_double_modules.py)."""


import hashlib
import secrets

# Filled by odoo_double.py from the fixture (odoo-external-api.json).
CONTRACT = {}


def hash_password(password):
    salt = secrets.token_hex(8)
    return f'{salt}${hashlib.sha256((salt + password).encode()).hexdigest()}'


def password_matches(stored, password):
    salt, _, digest = (stored or '').partition('$')
    return bool(digest) and secrets.compare_digest(hashlib.sha256((salt + str(password)).encode()).hexdigest(), digest)


class Fault(Exception):
    """A JSON-RPC fault of the fixture's `fault` table."""

    def __init__(self, kind, **fill):
        shape = CONTRACT['fault'][kind]
        message = shape['message']
        for key, value in fill.items():
            message = message.replace('{' + key + '}', str(value))
        super().__init__(message)
        self.name = shape['name']
        self.message = message


ADMIN_XML_IDS = ('base.group_erp_manager', 'base.group_system')


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


def public(record, fields, hidden=('password', 'xml_id', 'defaultUser')):
    shown = {k: v for k, v in record.items() if k not in hidden}
    if fields:
        shown = {k: shown.get(k, False) for k in ['id'] + [f for f in fields if f != 'id']}
    return shown


def find(records, ids, model, uid):
    found = []
    for i in ids:
        match = next((r for r in records if r['id'] == i), None)
        if match is None:
            raise Fault('missingRecord', model=model, id=i, uid=uid)
        found.append(match)
    return found


def group_id(state, xml_id):
    return next((g['id'] for g in state['groups'] if g['xml_id'] == xml_id), None)


def with_implied(state, ids):
    """The groups and, transitively, every group they imply (res.groups trans_implied_ids)."""
    implied = {g['id']: g.get('implied_ids', []) for g in state['groups']}
    result, todo = [], list(ids)
    while todo:
        gid = todo.pop(0)
        if gid in result or gid not in implied:
            continue
        result.append(gid)
        todo.extend(implied[gid])
    return result


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


def check_one_user_type(state, record):
    types = {group_id(state, x) for x in ('base.group_user', 'base.group_portal', 'base.group_public')}
    if len(types & set(record['groups_id'])) > 1:
        raise Fault('multipleUserTypes')


def record_values(state, record, vals, model):
    for key, value in vals.items():
        if key == 'password':
            record['password'] = hash_password(value) if value else record.get('password')
        elif key == 'groups_id':
            known = {g['id'] for g in state['groups']}
            ids = [i for i in apply_commands(record.get('groups_id', []), value) if i in known]
            record['groups_id'] = with_implied(state, ids)
            check_one_user_type(state, record)
        elif key in ('login', 'name', 'email', 'active'):
            record[key] = value
        else:
            raise Fault('unknownModel', model=f'{model}.{key}')


def is_admin(state, user):
    return all(group_id(state, x) in user['groups_id'] for x in ADMIN_XML_IDS)


def template_groups(state):
    template = next((u for u in state['users'] if u.get('xml_id') == CONTRACT['initialDatabase']['defaultUserXmlId']), None)
    return list(template['groups_id']) if template else []


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
            groups = [] if 'groups_id' in vals else with_implied(state, template_groups(state))
            record = {'id': state['next_id'], 'login': '', 'name': '', 'email': False, 'active': True, 'groups_id': groups, 'password': None}
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


def data_model(state, method, args, kwargs):
    if method != 'search_read':
        raise Fault('unknownMethod', model='ir.model.data', method=method)
    records = [('res.groups', g) for g in state['groups']] + [('res.users', u) for u in state['users'] if u.get('xml_id')]
    data = [{'id': i + 1, 'module': r['xml_id'].split('.')[0], 'name': r['xml_id'].split('.')[1], 'model': model,
             'res_id': r['id'], 'complete_name': r['xml_id']} for i, (model, r) in enumerate(records)]
    domain = args[0] if args else kwargs.get('domain', [])
    return [public(d, kwargs.get('fields')) for d in data if matches(d, domain)]


def config_model(state, uid, method, args, kwargs, admin):
    params = state.setdefault('params', {})
    if not admin:
        raise Fault('accessError', model='ir.config_parameter', uid=uid)
    if method == 'get_param':
        return params.get(args[0], args[1] if len(args) > 1 else False)
    if method == 'set_param':
        old = params.get(args[0], False)
        params[args[0]] = str(args[1])
        return old
    if method == 'search_read':
        domain = args[0] if args else kwargs.get('domain', [])
        rows = [{'id': i + 1, 'key': k, 'value': v} for i, (k, v) in enumerate(sorted(params.items()))]
        return [public(r, kwargs.get('fields')) for r in rows if matches(r, domain)]
    raise Fault('unknownMethod', model='ir.config_parameter', method=method)


# Scheduled actions and outgoing mail servers of a new database (Odoo 17 base and mail ship these crons active, no mail server).
INITIAL_CRONS = [{'id': 1, 'name': 'Base: Auto-vacuum internal data', 'active': True},
                 {'id': 2, 'name': 'Mail: Email Queue Manager', 'active': True}]


def records_model(state, key, model, uid, method, args, kwargs, admin, fields):
    """ir.cron and ir.mail_server: search_read, create and write of the listed fields (admins only)."""
    records = state.setdefault(key, [])
    if not admin:
        raise Fault('accessError', model=model, uid=uid)
    if method == 'search_read':
        domain = args[0] if args else kwargs.get('domain', [])
        if not any(isinstance(t, list) and t[0] == 'active' for t in domain):
            domain = domain + [['active', 'in', [True, False]]]
        return [public(r, kwargs.get('fields')) for r in records if matches(r, domain)]
    if method in ('create', 'write'):
        vals = args[0] if method == 'create' else args[1]
        unknown = [k for k in vals if k not in fields]
        if unknown:
            raise Fault('unknownModel', model=f'{model}.{unknown[0]}')
        if method == 'write':
            for record in find(records, args[0], model, uid):
                record.update(vals)
            return True
        record = dict({'active': True}, **vals, id=max([r['id'] for r in records] + [0]) + 1)
        records.append(record)
        return record['id']
    raise Fault('unknownMethod', model=model, method=method)


AUTOVACUUM_CRON = 'Base: Auto-vacuum internal data'
DUMMY_MAIL_SERVER = {'name': 'neutralization - disable emails', 'smtp_host': 'invalid', 'smtp_port': 1025}


def neutralize(state):
    """odoo neutralize as Odoo 17's SQL does it (seen on the real server): every scheduled action off
    but the autovacuum, every mail server off and one active dummy added that delivers nowhere (one
    more per run), database.is_neutralized set."""
    for cron in state.setdefault('crons', []):
        if cron.get('name') != AUTOVACUUM_CRON:
            cron['active'] = False
    servers = state.setdefault('mail_servers', [])
    for server in servers:
        server['active'] = False
    servers.append(dict(DUMMY_MAIL_SERVER, id=max([r['id'] for r in servers] + [0]) + 1, active=True))
    state.setdefault('params', {})['database.is_neutralized'] = 'true'


def upgrade(state, version):
    """odoo -d <db> -u all --stop-after-init from an image of `version`: the database now holds that
    version's data model (recorded as the system parameter database.erp_version, read with get_param)."""
    state.setdefault('params', {})['database.erp_version'] = version
