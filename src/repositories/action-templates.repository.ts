import { type SQL, sql } from 'drizzle-orm';
import { type Database, queryRows } from '../db/client.js';
import type { PageRequest } from '../schemas/common.js';
import type { TemplateItem } from '../schemas/registry.js';
import { whereClause } from './campaign-filters.js';

export interface TemplateFilters {
  /** The builder's budget account (lowercase). */
  budgetAccount?: string;
  onlyActive: boolean;
  statuses?: string[];
}

interface TemplateRow {
  id: string;
  action_type: string;
  slug: string;
  description: string;
  title: string;
  campaign_config: TemplateItem['actionTemplate']['campaignConfig'];
  name_config: TemplateItem['actionTemplate']['nameConfig'];
  is_active: boolean;
  url_template: string | null;
  allowlist: string[];
  distribution_channels: TemplateItem['actionTemplate']['distributionChannel'];
  verification_level: string | null;
  builder_metadata: TemplateItem['actionTemplate']['builderMetadata'];
  status: TemplateItem['actionTemplate']['status'];
  category: TemplateItem['actionTemplate']['category'];
  project_url: string;
  project_icon: string;
}

const COLUMNS = sql`t.id::text, t.action_type, p.slug, t.description, t.title, t.campaign_config, t.name_config, t.is_active,
  t.url_template, t.allowlist, t.distribution_channels, t.verification_level, t.builder_metadata, t.status, t.category,
  p.url AS project_url, p.image_uri AS project_icon`;

/**
 * Templates written before the configurations existed (migration 0025 gives them `{}`) cannot be shown
 * as the API requires; they are left out until imported again with their configuration.
 */
const configured = sql`t.campaign_config <> '{}'::jsonb`;

/** Action templates with their projects, as GET /action-templates shows them. */
export function createActionTemplatesRepository(db: Database) {
  return {
    /** Matching templates in ID order (the primary key; the builder filter has its own index). */
    async listTemplates(filters: TemplateFilters, page: PageRequest): Promise<TemplateItem[]> {
      const conditions: SQL[] = [configured];
      if (filters.budgetAccount !== undefined) conditions.push(sql`t.builder_budget_account = ${filters.budgetAccount}`);
      if (filters.onlyActive) conditions.push(sql`t.is_active`);
      if (filters.statuses?.length) conditions.push(sql`t.status = ANY(${sql.param(filters.statuses)}::text[])`);
      const rows = await queryRows<TemplateRow>(
        db,
        sql`SELECT ${COLUMNS} FROM action_templates AS t JOIN projects AS p ON p.id = t.project_id
            ${whereClause(conditions)} ORDER BY t.id LIMIT ${page.limit} OFFSET ${page.offset}`,
      );
      return rows.map(toTemplateItem);
    },

    async findTemplate(id: string): Promise<TemplateItem | null> {
      const [row] = await queryRows<TemplateRow>(
        db,
        sql`SELECT ${COLUMNS} FROM action_templates AS t JOIN projects AS p ON p.id = t.project_id WHERE t.id = ${id}::uuid AND ${configured}`,
      );
      return row === undefined ? null : toTemplateItem(row);
    },
  };
}

export type ActionTemplatesRepository = ReturnType<typeof createActionTemplatesRepository>;

function toTemplateItem(row: TemplateRow): TemplateItem {
  return {
    actionTemplate: {
      id: row.id,
      actionType: row.action_type,
      projectId: row.slug,
      description: row.description,
      title: row.title,
      campaignConfig: row.campaign_config,
      nameConfig: row.name_config,
      isActive: row.is_active,
      urlTemplate: row.url_template,
      allowlist: row.allowlist,
      distributionChannel: row.distribution_channels,
      verificationLevel: row.verification_level,
      builderMetadata: row.builder_metadata,
      status: row.status,
      category: row.category,
    },
    project: { id: row.slug, url: row.project_url, icon: row.project_icon },
  };
}
