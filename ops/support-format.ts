import type { QueueItem, TicketInTenant } from '../plugins/app/tickets/support-desk.ts'
import type { PageInfo } from '../lib/pages.ts'

/** "45s", "12m", "3h", "5d": how long ago, for a terminal table. */
export function formatAge (iso: string, now = Date.now()): string {
  const seconds = Math.max(0, Math.floor((now - Date.parse(iso)) / 1000))
  if (seconds < 60) return `${seconds}s`
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h`
  return `${Math.floor(seconds / 86_400)}d`
}

const when = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`

function clip (text: string, width: number): string {
  const flat = text.replace(/\s+/g, ' ')
  return flat.length > width ? `${flat.slice(0, width - 1)}…` : flat
}

function table (rows: string[][]): string {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0))) ?? []
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ').trimEnd()).join('\n')
}

export function formatQueue ({ tickets, pagination }: { tickets: QueueItem[], pagination: PageInfo }): string {
  if (tickets.length === 0) return pagination.total === 0 ? 'No tickets.' : `No tickets on page ${pagination.page} (${pagination.total} in all).`
  const rows = [
    ['TENANT', 'TICKET', 'SUBJECT', 'PRIORITY', 'STATUS', 'AGE', 'LAST MESSAGE', 'MSGS'],
    ...tickets.map((ticket) => [
      ticket.tenant.subdomain, ticket.id, clip(ticket.subject, 40), ticket.priority, ticket.status,
      formatAge(ticket.created_at), `${formatAge(ticket.last_message_at)} ago`, String(ticket.message_count)
    ])
  ]
  const pages = Math.max(1, Math.ceil(pagination.total / pagination.per_page))
  return `${table(rows)}\n\nPage ${pagination.page} of ${pages} (${pagination.total} ticket${pagination.total === 1 ? '' : 's'}); most urgent first, then longest waiting.`
}

export function formatThread ({ tenant, ticket }: TicketInTenant): string {
  const lines = [
    `Ticket ${ticket.id}`,
    `Tenant:   ${tenant.subdomain} (${tenant.name})`,
    `Subject:  ${ticket.subject}`,
    `Status:   ${ticket.status}    Priority: ${ticket.priority}`,
    `Opened:   ${when(ticket.created_at)} by ${ticket.created_by?.name ?? 'a removed user'} (${formatAge(ticket.created_at)} ago)`
  ]
  if (ticket.closed_at !== null) lines.push(`Closed:   ${when(ticket.closed_at)}`)
  for (const message of ticket.messages) {
    lines.push('', `--- ${message.author.name}${message.from_support ? ' (support)' : ''} · ${when(message.created_at)}`, message.message)
  }
  return lines.join('\n')
}
