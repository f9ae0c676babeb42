"""ir.module.module of the contract double (odoo_double.py): the modules of a database's state,
`update_list` from the addons path, an install's plan (dependencies first, a missing one is Odoo's
fault) and its end: a module's install adds its groups; those meant for every employee go to the
template base.default_user and to every internal user (res_users.py write() on the template).
An uninstall as Odoo 17's (ir_module.py button_uninstall): the server-wide modules and a module that
is not installed are refused; the module and every module that depends on it (downstream_dependencies)
go `to remove`, then `uninstalled`, their groups removed. The time an install or an uninstall takes
and the reload that answers nothing are the server's (odoo_double_services.py)."""
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


def downstream_dependencies(state, names, exclude_states=('uninstalled', 'uninstallable', 'to remove')):
    """The modules that depend on these, directly or through others, but those in exclude_states."""
    found = []
    grew = True
    while grew:
        grew = False
        for module in state['modules']:
            if module['name'] in names or module in found or module['state'] in exclude_states:
                continue
            if any(d in names or any(f['name'] == d for f in found) for d in module.get('dependencies', [])):
                found.append(module)
                grew = True
    return found


def finish_uninstall(state, names):
    """The uninstall's end: the modules uninstalled, their groups gone from the database and from its users."""
    for module in [m for m in state['modules'] if m['name'] in names]:
        module['state'] = 'uninstalled'
        gone = {group['id'] for group in module.get('groups', [])}
        state['groups'] = [g for g in state['groups'] if g['id'] not in gone]
        for user in state['users']:
            user['groups_id'] = [g for g in user['groups_id'] if g not in gone]


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
    """Returns (result, work): work is None, or ('install' | 'uninstall', names) to do after the call's lock is released."""
    modules = state['modules']
    if method == 'search_read':
        domain = args[0] if args else kwargs.get('domain', [])
        return [models.public(m, kwargs.get('fields'), ('dependencies', 'groups')) for m in modules if models.matches(m, domain)], None
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
        return [0, added], None
    if method == 'button_immediate_install':
        plan = []
        for module in models.find(modules, args[0], 'ir.module.module', uid):
            install_plan(state, module, {m['name'] for m in plan}, plan)
        for module in plan:
            module['state'] = 'to install'  # committed before the registry is rebuilt, as Odoo does
        return {'type': 'ir.actions.client', 'tag': 'reload'}, ('install', [m['name'] for m in plan])
    if method == 'button_immediate_upgrade':
        for module in models.find(modules, args[0], 'ir.module.module', uid):
            if module['state'] != 'installed':
                raise Fault('notInstalled', module=module['name'])
        return {'type': 'ir.actions.client', 'tag': 'reload'}, None
    if method == 'downstream_dependencies':
        names = {m['name'] for m in models.find(modules, args[0], 'ir.module.module', uid)}
        return [m['id'] for m in downstream_dependencies(state, names)], None
    if method == 'button_immediate_uninstall':
        chosen = models.find(modules, args[0], 'ir.module.module', uid)
        server_wide = [m['name'] for m in chosen if m['name'] in models.CONTRACT['server']['serverWideModules']]
        if server_wide:
            raise Fault('serverWideUninstall', modules=', '.join(server_wide))
        if any(m['state'] not in ('installed', 'to upgrade') for m in chosen):
            raise Fault('alreadyUninstalled')
        plan = chosen + downstream_dependencies(state, {m['name'] for m in chosen})
        for module in plan:
            module['state'] = 'to remove'  # committed before the modules are removed, as Odoo does
        return {'type': 'ir.actions.client', 'tag': 'reload'}, ('uninstall', [m['name'] for m in plan])
    raise Fault('unknownMethod', model='ir.module.module', method=method)
