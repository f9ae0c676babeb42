import type { EntityManager } from '@mikro-orm/postgresql'
import type { ModuleEdition } from './erp-module.entity.ts'

export interface CatalogEntry {
  technicalName: string
  name: string
  category: string
  /** Order inside the category: the app people look for first comes first. */
  sequence: number
  description: string
  edition: ModuleEdition
}

export const MODULE_CATEGORIES = [
  'Sales', 'Finance', 'Inventory & MRP', 'Human Resources', 'Website', 'Marketing', 'Services', 'Productivity'
] as const

type Row = [technicalName: string, name: string, description: string]

/**
 * The apps Odoo ships only in its Enterprise edition (OEEL-1 licence): a Community image has no
 * such module, so installing one fails inside the ERP. The rest are in both editions.
 */
export const ENTERPRISE_ONLY: ReadonlySet<string> = new Set([
  'sale_subscription', 'sale_renting', 'account_accountant', 'documents', 'sign', 'mrp_plm', 'quality_control',
  'hr_appraisal', 'hr_payroll', 'marketing_automation', 'helpdesk', 'industry_fsm', 'planning', 'appointment', 'knowledge', 'approvals'
])

/** Rows of one category, numbered 10, 20, 30… in the order given. */
function category (name: typeof MODULE_CATEGORIES[number], rows: Row[]): CatalogEntry[] {
  return rows.map(([technicalName, appName, description], index) => ({
    technicalName, name: appName, category: name, sequence: (index + 1) * 10, description,
    edition: ENTERPRISE_ONLY.has(technicalName) ? 'enterprise' : 'community'
  }))
}

/** The installable ERP apps, with Odoo's technical names. */
export const MODULE_CATALOG: readonly CatalogEntry[] = [
  ...category('Sales', [
    ['crm', 'CRM', 'Track leads and opportunities in a visual pipeline, schedule follow-up activities and forecast revenue.'],
    ['sale_management', 'Sales', 'Quotations and sales orders with pricelists, discounts, optional products and online signature and payment of quotes.'],
    ['point_of_sale', 'Point of Sale', 'Touch-screen checkout for shops and restaurants that keeps working offline and updates stock and accounting.'],
    ['sale_subscription', 'Subscriptions', 'Recurring contracts: automatic renewal invoices, upsells, churn and MRR reporting.'],
    ['sale_renting', 'Rental', 'Rent out products by the hour, day or week: pickups, returns, availability and late fees.']
  ]),
  ...category('Finance', [
    ['account', 'Invoicing', 'Customer invoices, vendor bills, credit notes, online payments and automated payment follow-ups.'],
    ['account_accountant', 'Accounting', 'Double-entry accounting with bank synchronisation and reconciliation, tax returns, assets and financial reports.'],
    ['hr_expense', 'Expenses', 'Employees submit receipts from their phone; managers approve; reimbursements and re-invoicing to customers.'],
    ['documents', 'Documents', 'A shared document store with folders, tags and workflows that turn scanned files into bills or expenses.'],
    ['sign', 'Sign', 'Send contracts and forms for legally binding electronic signature and track who has signed.']
  ]),
  ...category('Inventory & MRP', [
    ['stock', 'Inventory', 'Warehouses and locations, receipts and deliveries, barcode scanning, reordering rules and stock valuation.'],
    ['purchase', 'Purchase', 'Requests for quotation, purchase orders, vendor pricelists and three-way matching with bills.'],
    ['mrp', 'Manufacturing', 'Bills of materials, manufacturing orders, work centres and capacity planning on the shop floor.'],
    ['mrp_plm', 'PLM', 'Product lifecycle management: engineering change orders, BoM versions and approval workflows.'],
    ['quality_control', 'Quality', 'Quality control points and checks in operations, alerts and corrective actions.'],
    ['maintenance', 'Maintenance', 'Preventive and corrective maintenance of equipment with requests, schedules and downtime statistics.'],
    ['repair', 'Repairs', 'Repair orders for customer products: diagnosis, parts, labour, warranty and invoicing.']
  ]),
  ...category('Human Resources', [
    ['hr', 'Employees', 'The employee directory: departments, org chart, contracts, skills and private information.'],
    ['hr_recruitment', 'Recruitment', 'Publish job positions, collect applications, schedule interviews and send offers.'],
    ['hr_holidays', 'Time Off', 'Leave requests, allocations and approvals with a shared team calendar.'],
    ['hr_attendance', 'Attendances', 'Check-in and check-out from a kiosk or the browser, with worked and overtime hours.'],
    ['hr_appraisal', 'Appraisals', 'Periodic employee reviews with goals, feedback and skill evolution.'],
    ['hr_payroll', 'Payroll', 'Salary structures, payslips and payroll accounting entries, with country-specific rules.'],
    ['fleet', 'Fleet', 'Company vehicles: drivers, contracts, fuel logs, odometer readings and service costs.']
  ]),
  ...category('Website', [
    ['website', 'Website', 'Drag-and-drop website builder with themes, SEO tools, translations and visitor tracking.'],
    ['website_sale', 'eCommerce', 'An online shop with product variants, cart, checkout, payment providers and shipping methods.'],
    ['website_blog', 'Blog', 'Publish articles with tags and comments to improve search ranking and engage readers.'],
    ['website_slides', 'eLearning', 'Online courses with videos, documents, quizzes and certifications.'],
    ['im_livechat', 'Live Chat', 'Chat with website visitors in real time, with canned responses, chatbots and ratings.']
  ]),
  ...category('Marketing', [
    ['mass_mailing', 'Email Marketing', 'Design newsletters, manage mailing lists, run A/B tests and measure opens and clicks.'],
    ['mass_mailing_sms', 'SMS Marketing', 'Send SMS campaigns to contacts and mailing lists and track delivery.'],
    ['marketing_automation', 'Marketing Automation', 'Multi-step campaigns that send e-mails and SMS triggered by what contacts do.'],
    ['event', 'Events', 'Organise events and conferences: tickets, registrations, badges, tracks and attendee communication.'],
    ['survey', 'Surveys', 'Questionnaires, polls and certification exams with live results and analysis.']
  ]),
  ...category('Services', [
    ['project', 'Project', 'Projects and tasks in kanban, list and Gantt views with stages, deadlines and collaboration.'],
    ['hr_timesheet', 'Timesheets', 'Record time spent on projects and tasks, and invoice it to customers.'],
    ['helpdesk', 'Helpdesk', 'Customer support tickets from e-mail, web forms and live chat with SLAs and customer ratings.'],
    ['industry_fsm', 'Field Service', 'Plan on-site interventions, record time and materials on a phone and invoice on the spot.'],
    ['planning', 'Planning', 'Schedule shifts and resources, handle open shifts and send the schedule to employees.'],
    ['appointment', 'Appointments', 'Let customers book meetings in your free slots, with reminders and video-call links.']
  ]),
  ...category('Productivity', [
    ['mail', 'Discuss', 'Chat, channels and direct messages, plus the messaging and activities behind every record.'],
    ['calendar', 'Calendar', 'Shared meeting calendar with invitations, reminders and Google and Outlook synchronisation.'],
    ['contacts', 'Contacts', 'One address book of customers, vendors and people shared by every app.'],
    ['knowledge', 'Knowledge', 'A collaborative wiki for internal documentation, procedures and notes.'],
    ['approvals', 'Approvals', 'Approval requests for purchases, travel, borrowing items and more, with approver rules.']
  ])
]

const COLUMNS_PER_ROW = 6

/**
 * Upserts the catalog by technical name, in one statement: re-running it
 * updates names, descriptions, categories, order and editions and never duplicates a
 * module. Replicas seeding at once are serialised by the unique index (rows are
 * always written in the same order, so they cannot deadlock). Unchanged rows
 * are not rewritten. Modules dropped from the catalog are left in place.
 * Returns how many rows were inserted or changed.
 */
export async function seedModuleCatalog (em: EntityManager): Promise<{ modules: number, changed: number }> {
  const placeholders = MODULE_CATALOG.map(() => `(${Array(COLUMNS_PER_ROW).fill('?').join(', ')})`).join(', ')
  const params = MODULE_CATALOG.flatMap((m) => [m.technicalName, m.name, m.description, m.category, m.sequence, m.edition])
  const rows = await em.execute<Array<{ technical_name: string }>>(`
    INSERT INTO erp_modules (technical_name, name, description, category, sequence, edition)
    VALUES ${placeholders}
    ON CONFLICT (technical_name) WHERE tenant_id IS NULL DO UPDATE
      SET name = excluded.name, description = excluded.description, category = excluded.category, sequence = excluded.sequence, edition = excluded.edition
      WHERE (erp_modules.name, erp_modules.description, erp_modules.category, erp_modules.sequence, erp_modules.edition)
        IS DISTINCT FROM (excluded.name, excluded.description, excluded.category, excluded.sequence, excluded.edition)
    RETURNING technical_name`, params)
  return { modules: MODULE_CATALOG.length, changed: rows.length }
}
