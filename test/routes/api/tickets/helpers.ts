import type { FastifyInstance } from 'fastify'
import type { MikroORM } from '@mikro-orm/postgresql'
import { bearer } from '../../../support/accounts.ts'

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
export const ISO_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/** Opens a ticket through the real route and returns the ticket from the 201 answer. */
export async function openTicket (app: FastifyInstance, token: string, body: Record<string, unknown> = {}) {
  const response = await app.inject({
    method: 'POST',
    url: '/api/tickets/create',
    headers: bearer(token),
    payload: { subject: 'Invoices do not print', description: 'The PDF is empty since this morning.', priority: 'high', ...body }
  })
  if (response.statusCode !== 201) throw new Error(`create failed: ${response.statusCode} ${response.body}`)
  return response.json().ticket
}

export function getTicket (app: FastifyInstance, token: string, id: string) {
  return app.inject({ method: 'GET', url: `/api/tickets/${id}`, headers: bearer(token) })
}

export function replyTo (app: FastifyInstance, token: string, id: string, message: unknown) {
  return app.inject({ method: 'POST', url: `/api/tickets/${id}/reply`, headers: bearer(token), payload: { message } })
}

export interface ActivityRow {
  type: string
  title: string
  actor_kind: string
  actor_id: string | null
  actor_name: string
  target_type: string | null
  target_id: string | null
}

/** The tenant's activity rows, oldest first. */
export async function activities (orm: MikroORM, tenantId: string): Promise<ActivityRow[]> {
  const rows = await orm.em.getConnection().execute(
    'SELECT type, title, actor_kind, actor_id, actor_name, target_type, target_id FROM activities WHERE tenant_id = ? ORDER BY id',
    [tenantId]
  )
  return rows as unknown as ActivityRow[]
}

/** A ticket's row and thread straight from the database, to prove that a refused request changed nothing. */
export async function snapshot (orm: MikroORM, ticketId: string) {
  const connection = orm.em.getConnection()
  const ticket = await connection.execute('SELECT status, subject, last_message_at, updated_at, closed_at FROM tickets WHERE id = ?', [ticketId])
  const messages = await connection.execute('SELECT id, message, from_support FROM ticket_messages WHERE ticket_id = ? ORDER BY created_at, id', [ticketId])
  return { ticket, messages }
}
