"""Contract double of an Odoo server for the control plane's tests (not Odoo: a stand-in that keeps
Odoo's external JSON-RPC contract, with the shapes in odoo-external-api.json beside this file).

Run as the official image runs Odoo: `odoo [options]`.
  odoo -d <db> -i base --without-demo=all --stop-after-init   initialises <db> (admin/admin, uid 2), exits
  odoo [-c <config>] [-d <db>]                                 serves POST /jsonrpc and GET /web/health on 8069
  odoo neutralize -d <db> [options]                            as Odoo 16+: scheduled actions and mail servers off,
                                                               database.is_neutralized set; exits (see neutralize)
  odoo -d <db> -u all --stop-after-init                        updates every module as a new version's image does:
                                                               database.erp_version set; exits (see upgrade)
As strict as Odoo where the control plane depends on it (real Odoo 17 measured):
- while the configured database is not initialised, /web/health and every /jsonrpc call (even
  common.version) answer an HTML 500 page;
- `-i base` and module installs and uninstalls take time (the fixture's `timing`, overridden by environment
  variables); during the last part of an install (the registry reload) the server answers nothing,
  health check included, until the reload ends;
- authenticate checks the stored password; after repeated failures from one address every login
  from it fails for a while, even with the right password (`loginCooldown`);
- with list_db = False the db service answers AccessDenied;
- groups, the default user template and module installs as odoo_double_models.py and
  odoo_double_modules.py say.
State lives under the data_dir (the instance's /var/lib/odoo volume), so it survives restarts; the
server's side is odoo_double_services.py."""
import configparser
import json
import os
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from odoo_double_models import Fault
from odoo_double_services import (CONTRACT, OPTIONS, RELOAD, configured_database_missing, dispatch, initialise,
                                  list_db_disabled, log, neutralize, upgrade)


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
        self.answer(500, CONTRACT['server']['internalErrorPage'], 'text/html; charset=utf-8')

    def do_GET(self):
        self.wait_for_reload()
        if self.path in (CONTRACT['server']['healthPath'], '/healthz'):
            if configured_database_missing():
                self.uninitialised_page()
            else:
                self.answer(200, CONTRACT['server']['healthPass'])
        elif self.path.startswith('/web/database'):
            disabled = list_db_disabled()
            self.answer(200, CONTRACT['server']['databaseManagerDisabled'] if disabled else 'database manager', 'text/html')
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
    command = argv[0] if argv and argv[0] == 'neutralize' else None
    OPTIONS.update(parse_options(argv[1:] if command else argv))
    if command == 'neutralize':
        if not OPTIONS.get('db_name'):
            sys.exit('odoo neutralize: error: -d <database> is required')
        neutralize(OPTIONS['db_name'])
        return
    if OPTIONS.get('db_user') == 'postgres':
        sys.exit(CONTRACT['server']['postgresUserRefused'])
    if OPTIONS.get('init'):
        if not OPTIONS.get('db_name'):
            sys.exit('odoo: error: -i needs a database (-d)')
        initialise(OPTIONS['db_name'])
    if OPTIONS.get('update') and OPTIONS.get('stop_after_init'):
        if not OPTIONS.get('db_name'):
            sys.exit('odoo: error: -u needs a database (-d)')
        upgrade(OPTIONS['db_name'], OPTIONS['update'])
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
