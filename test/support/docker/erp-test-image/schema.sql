-- The stand-in's Odoo-like schema, made by `odoo -d <db> -i base --stop-after-init` (psql
-- variables: uuid, secret). In one transaction, base marked installed last: a run cut short
-- leaves a database that is not initialised. On an initialised database it changes nothing.
CREATE TABLE IF NOT EXISTS ir_module_module (id serial PRIMARY KEY, name varchar NOT NULL UNIQUE, state varchar NOT NULL);
CREATE TABLE IF NOT EXISTS res_users (id serial PRIMARY KEY, login varchar NOT NULL UNIQUE, password varchar);
CREATE TABLE IF NOT EXISTS ir_config_parameter (id serial PRIMARY KEY, key varchar NOT NULL UNIQUE, value text NOT NULL);
CREATE TABLE IF NOT EXISTS ir_cron (id serial PRIMARY KEY, name varchar NOT NULL UNIQUE, active boolean NOT NULL DEFAULT true);
CREATE TABLE IF NOT EXISTS ir_mail_server (id serial PRIMARY KEY, name varchar NOT NULL, smtp_host varchar NOT NULL, active boolean NOT NULL DEFAULT true);
INSERT INTO ir_cron (name) VALUES ('Base: Auto-vacuum internal data'), ('Mail: Email Queue Manager') ON CONFLICT (name) DO NOTHING;
CREATE TABLE IF NOT EXISTS ir_attachment (id serial PRIMARY KEY, name varchar NOT NULL, store_fname varchar, mimetype varchar, file_size integer, checksum varchar(40));
INSERT INTO res_users (id, login, password) VALUES (1, '__system__', NULL), (2, 'admin', 'admin') ON CONFLICT (id) DO NOTHING;
SELECT setval(pg_get_serial_sequence('res_users', 'id'), (SELECT max(id) FROM res_users));
INSERT INTO ir_config_parameter (key, value) VALUES
  ('database.uuid', :'uuid'), ('database.secret', :'secret'), ('database.create_date', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS')),
  ('web.base.url', :'base_url')
  ON CONFLICT (key) DO NOTHING;
INSERT INTO ir_module_module (name, state) VALUES ('base', 'installed') ON CONFLICT (name) DO UPDATE SET state = 'installed';
