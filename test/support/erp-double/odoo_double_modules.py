"""ir.module.module of the contract double (odoo_double.py): the modules of a database's state,
`update_list` from the addons path, an install's plan (dependencies first, a missing one is Odoo's
fault) and its end: a module's install adds its groups; those meant for every employee go to the
template base.default_user and to every internal user (res_users.py write() on the template). The
install's time and the reload that answers nothing are the server's (odoo_double_services.py)."""
import ast
import os

import odoo_double_models as models
from odoo_double_models import Fault


def addon_manifests(addons_path):
    found = {}
    for root in [p.strip() for p in addons_path.split(',') if p.strip()]:
        if not os.path.isdir(root):
            continue
        for name in sorted(os.listdir(root)):
            manifest = os.path.join(root, name, '__manifest__.py')
            if not name.startswith('.') and os.path.isfile(manifest):
                with open(manifest, encoding='utf-8') as f:
                    found[name] = ast.literal_eval(f.read())
    return found


def install_plan(state, module, seen, plan):
    """The module and its missing dependencies, dependencies first; a missing one is Odoo's fault."""
    if module['state'] == 'installed' or module['name'] in seen:
        return plan
    seen.add(module['name'])
    for dependency in module.get('dependencies', []):
        found = next((m for m in state['modules'] if m['name'] == dependency), None)
        if found is None:
            raise Fault('missingDependency', module=module['name'], dependency=dependency)
        install_plan(state, found, seen, plan)
    plan.append(module)
    return plan


def finish_install(state, names):
    """The registry reload's end: modules installed, their groups added, the template's new groups
    given to every internal user."""
    internal = models.group_id(state, 'base.group_user')
    for module in [m for m in state['modules'] if m['name'] in names]:
        module['state'] = 'installed'
        for group in module.get('groups', []):
            if not any(g['id'] == group['id'] for g in state['groups']):
                state['groups'].append({k: v for k, v in group.items() if k != 'defaultUser'})
            if group.get('defaultUser'):
                for user in state['users']:
                    if user.get('xml_id') == models.CONTRACT['initialDatabase']['defaultUserXmlId'] or internal in user['groups_id']:
                        user['groups_id'] = models.with_implied(state, user['groups_id'] + [group['id']])


def modules_model(state, uid, method, args, kwargs, admin, addons_path):
    """Returns (result, names to install after the call's lock is released)."""
    modules = state['modules']
    if method == 'search_read':
        domain = args[0] if args else kwargs.get('domain', [])
        return [models.public(m, kwargs.get('fields'), ('dependencies', 'groups')) for m in modules if models.matches(m, domain)], []
    if not admin:
        raise Fault('accessError', model='ir.module.module', uid=uid)
    if method == 'update_list':
        added = 0
        for name, manifest in addon_manifests(addons_path).items():
            if not any(m['name'] == name for m in modules):
                modules.append({'id': state['next_id'], 'name': name, 'shortdesc': manifest.get('name', name),
                                'state': 'uninstalled', 'dependencies': list(manifest.get('depends', []))})
                state['next_id'] += 1
                added += 1
        return [0, added], []
    if method == 'button_immediate_install':
        plan = []
        for module in models.find(modules, args[0], 'ir.module.module', uid):
            install_plan(state, module, {m['name'] for m in plan}, plan)
        for module in plan:
            module['state'] = 'to install'  # committed before the registry is rebuilt, as Odoo does
        return {'type': 'ir.actions.client', 'tag': 'reload'}, [m['name'] for m in plan]
    if method == 'button_immediate_upgrade':
        for module in models.find(modules, args[0], 'ir.module.module', uid):
            if module['state'] != 'installed':
                raise Fault('notInstalled', module=module['name'])
        return {'type': 'ir.actions.client', 'tag': 'reload'}, []
    raise Fault('unknownMethod', model='ir.module.module', method=method)
