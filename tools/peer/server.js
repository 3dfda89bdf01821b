'use strict';
// The peer's server: boardgame.io's own Server with bgio-postgres storage, as its documentation
// sets it up (Sequelize's defaults, its query log off). Serves Pico on --port (0, the default: a
// port the kernel picks while binding, so none can be taken between a choice and the bind) and
// prints "peer server listening on PORT" once it listens.
//   node server.js [--port=N] --db_host=DIR_OR_HOST --db_port=N --db_name=NAME [--db_user=postgres]
const {Server} = require('boardgame.io/server');
const {PostgresStore} = require('bgio-postgres');
const {Pico} = require('./pico.js');
const {parseFlags} = require('./flags.js');

const flags = parseFlags(process.argv.slice(2), {
  port: '0', db_host: '127.0.0.1', db_port: '5432', db_name: 'peer', db_user: 'postgres',
});
const db = new PostgresStore({
  host: flags.db_host,  // a directory is a unix socket's, as libpq's host=
  port: Number(flags.db_port),
  database: flags.db_name,
  username: flags.db_user,
  logging: false,
});
const server = Server({games: [Pico], db});
server.run(Number(flags.port)).then(({appServer}) => {
  console.log(`peer server listening on ${appServer.address().port}`);
});
