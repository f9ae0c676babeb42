import { sql, type FilterOptions } from '@mikro-orm/core'
import type { EntityManager } from '@mikro-orm/postgresql'
import { TicketMessage } from './ticket.entity.ts'

/**
 * Messages per ticket for one page of tickets, in one grouped query. The query
 * builder does not apply filters by itself: `applyFilters` adds the tenant scope
 * of `em` (the support desk passes ACROSS_TENANTS' filters to opt out).
 */
export async function countMessages (em: EntityManager, ticketIds: string[], filters?: FilterOptions): Promise<Map<string, number>> {
  if (ticketIds.length === 0) return new Map()
  const query = em.createQueryBuilder(TicketMessage, 'm')
    .select(['m.ticket', sql`count(*)::int`.as('count')])
    .where({ ticket: { $in: ticketIds } })
    .groupBy('m.ticket')
  await query.applyFilters(filters)
  const rows = await query.execute<Array<{ ticket: string, count: number }>>()
  return new Map(rows.map((row) => [row.ticket, Number(row.count)]))
}
