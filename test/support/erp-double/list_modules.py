"""Prints the files of every module the double loads while it serves requests (build-erp-double-image.sh
copies exactly these into the image): the double is imported and answers one request of each kind."""
import importlib.util
import json
import os
import sys
import tempfile
import threading
import http.client

here = os.path.dirname(os.path.abspath(__file__))
os.environ['ERP_DOUBLE_INIT_SECONDS'] = '0'
spec = importlib.util.spec_from_file_location('odoo_double', os.path.join(here, 'odoo_double.py'))
double = importlib.util.module_from_spec(spec)
spec.loader.exec_module(double)
data_dir = tempfile.mkdtemp()
double.OPTIONS.update(double.parse_options(['-d', 'probe', '--data-dir', data_dir, '-p', '0']))
double.initialise('probe')
server = double.ThreadingHTTPServer(('127.0.0.1', 0), double.Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
for body in (double.CONTRACT['request']['authenticate'], double.CONTRACT['request']['execute_kw']):
    connection = http.client.HTTPConnection('127.0.0.1', server.server_address[1])
    text = json.dumps(body).replace('<db>', 'probe').replace('<password>', 'admin').replace('<login>', 'admin')
    connection.request('POST', '/jsonrpc', text, {'Content-Type': 'application/json'})
    connection.getresponse().read()
server.shutdown()
for module in list(sys.modules.values()):
    path = getattr(module, '__file__', None)
    if path and path.startswith(sys.base_prefix) and os.path.exists(path):
        print(path)
