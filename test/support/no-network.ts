/**
 * Preloaded (`node --import`) into a tool that must work offline: every TCP or
 * TLS connection it tries is refused, and named on stderr as `NETWORK ATTEMPT`,
 * so a test can assert that there was none.
 */
import net from 'node:net'

const connect = net.Socket.prototype.connect
net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
  // net.connect passes its normalized arguments as one array: [options, callback].
  const first = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0]
  const target = typeof first === 'object' && first !== null ? JSON.stringify({ host: (first as { host?: unknown }).host, port: (first as { port?: unknown }).port, path: (first as { path?: unknown }).path }) : String(first)
  process.stderr.write(`NETWORK ATTEMPT ${target}\n`)
  // Unix sockets (a tool's own IPC) are not the network.
  if (typeof first === 'object' && first !== null && typeof (first as { path?: unknown }).path === 'string') return connect.apply(this, args as unknown as Parameters<typeof connect>)
  process.nextTick(() => this.destroy(new Error('no network in this test')))
  return this
} as typeof connect
