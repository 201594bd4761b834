import { ACTION_TEMPLATE_CATEGORIES } from '../db/schema.js';
import {
  CATEGORY_ACTIONS,
  CHAINS,
  COLLECTION_NAMES,
  CONTRACT_KINDS,
  PROJECTS,
  TOKENS,
  VERIFICATION_LEVELS,
  type TokenSpec,
} from './catalog.js';
import type { Random } from './random.js';
import type { Rows } from './rows.js';

/**
 * The data campaigns point at: tokens, projects and their action templates, the contract registry,
 * users with their access lists. Small next to campaigns and claims, so it is built at once.
 */

/** The demo user the zero-setup default issues a token for; its data is shaped to show every feature. */
export const DEMO_USER_ADDRESS = '0x5eed00000000000000000000000000000000c0de';

export interface Token extends TokenSpec {
  address: string;
  id: string;
}

export interface Template {
  id: string;
  projectName: string;
  projectImageUri: string;
  category: (typeof ACTION_TEMPLATE_CATEGORIES)[number];
  actionType: string;
}

export type BaseTemplateRow = Pick<Rows['actionTemplates'][number], 'id' | 'projectId' | 'actionType' | 'description' | 'category'>;

export interface Reference {
  tokens: Token[];
  templates: Template[];
  /** Named contracts per chain that actions target (project contracts). */
  projectContracts: Map<number, string[]>;
  /** Named NFT collections per chain (targets of `<chain>:<address>:collection` token filters). */
  collections: Map<number, string[]>;
  users: { id: string; address: string }[];
  accessListIds: string[];
  rows: Pick<Rows, 'tokens' | 'projects' | 'contracts' | 'users' | 'accessLists' | 'accessListMembers'> & {
    /** What the catalog decides of each template; completeTemplates (registry.ts) adds its configuration. */
    actionTemplates: BaseTemplateRow[];
  };
}

export function generateReference(random: Random, campaignCount: number, now: Date): Reference {
  const tokens: Token[] = TOKENS.map((spec) => ({ ...spec, address: spec.address ?? random.address(), id: random.uuid() }));

  const projectRows = PROJECTS.map((project) => {
    const slug = project.name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
    return {
      id: random.uuid(),
      name: project.name,
      imageUri: `https://assets.example.com/projects/${slug}.png`,
      url: `https://${slug}.example.org`,
      verificationLevel: random.pick(VERIFICATION_LEVELS),
      category: project.category,
    };
  });

  const templates: Template[] = [];
  for (const project of projectRows) {
    // Each project offers its own category's actions, and now and then one of another category.
    const categories = [project.category, ...(random.chance(0.4) ? [random.pick(ACTION_TEMPLATE_CATEGORIES)] : [])];
    for (const category of categories) {
      for (const actionType of random.sample(CATEGORY_ACTIONS[category], random.int(1, 2))) {
        templates.push({
          id: random.uuid(),
          projectName: project.name,
          projectImageUri: project.imageUri,
          category,
          actionType,
        });
      }
    }
  }
  // Every category appears at least once.
  for (const category of ACTION_TEMPLATE_CATEGORIES) {
    if (!templates.some((template) => template.category === category)) {
      const project = random.pick(projectRows);
      templates.push({
        id: random.uuid(),
        projectName: project.name,
        projectImageUri: project.imageUri,
        category,
        actionType: random.pick(CATEGORY_ACTIONS[category]),
      });
    }
  }
  const projectIdByName = new Map<string, string>(projectRows.map((project) => [project.name, project.id]));

  const contractRows: Rows['contracts'] = [];
  const projectContracts = new Map<number, string[]>();
  const collections = new Map<number, string[]>();
  for (const chain of CHAINS) {
    const chainContracts: string[] = [];
    for (const project of projectRows) {
      for (const kind of random.sample(CONTRACT_KINDS, random.int(1, 2))) {
        const address = random.address();
        chainContracts.push(address);
        contractRows.push({ chainId: chain.id, address, name: `${project.name} ${kind}` });
      }
    }
    projectContracts.set(chain.id, chainContracts);
    const chainCollections = COLLECTION_NAMES.map((name) => {
      const address = random.address();
      contractRows.push({ chainId: chain.id, address, name });
      return address;
    });
    collections.set(chain.id, chainCollections);
  }

  const userCount = Math.max(50, Math.round(campaignCount / 10));
  const users = Array.from({ length: userCount }, (_, index) => ({
    id: random.uuid(),
    address: index === 0 ? DEMO_USER_ADDRESS : random.address(),
    // Multiples of ten, so equal scores (shared ranks) occur.
    score: index === 0 ? 2500 : random.int(0, 500) * 10,
  }));

  const accessListCount = Math.max(12, Math.round(userCount / 5));
  const accessLists: Rows['accessLists'] = [];
  const accessListMembers: Rows['accessListMembers'] = [];
  for (let index = 0; index < accessListCount; index++) {
    // The first dozen belong to the demo user, so its token shows a full page.
    const owner = index < 12 ? users[0] : random.pick(users);
    const id = random.uuid();
    const name = `${random.pick(LIST_ADJECTIVES)} ${random.pick(LIST_NOUNS)}`;
    accessLists.push({
      id,
      ownerUserId: owner!.id,
      name: index < 12 ? `${name} ${index + 1}` : name,
      icon: `https://assets.example.com/icons/${random.pick(LIST_ICONS)}.svg`,
      createdAt: new Date(now.getTime() - random.int(1, 180 * 24) * HOUR_MS),
    });
    for (const member of random.sample(users, random.int(0, 40))) {
      accessListMembers.push({ accessListId: id, address: member.address });
    }
  }

  return {
    tokens,
    templates,
    projectContracts,
    collections,
    users: users.map(({ id, address }) => ({ id, address })),
    accessListIds: accessLists.map((list) => list.id!),
    rows: {
      tokens: tokens.map((token) => ({
        chainId: token.chainId,
        address: token.address,
        id: token.id,
        name: token.name,
        symbol: token.symbol,
        decimals: token.decimals,
        imageUri: `https://assets.example.com/tokens/${token.symbol.toLowerCase()}.png`,
        isWhitelisted: token.isWhitelisted,
        isBlocked: token.isBlocked ?? false,
        priceUsd: token.priceUsd === null ? null : String(token.priceUsd),
        marketCapUsd: token.priceUsd === null ? null : String(random.int(1_000_000, 90_000_000_000)),
        priceChange24hPct: token.priceUsd === null ? null : (random.int(-2500, 2500) / 100).toFixed(2),
        volume24hUsd: token.priceUsd === null ? null : String(random.int(10_000, 2_000_000_000)),
        holders: random.int(100, 5_000_000),
      })),
      projects: projectRows.map(({ category: _category, ...project }) => project),
      actionTemplates: templates.map((template) => ({
        id: template.id,
        projectId: projectIdByName.get(template.projectName)!,
        actionType: template.actionType,
        description: `${capitalize(template.actionType)} on ${template.projectName}`,
        category: template.category,
      })),
      contracts: contractRows,
      users,
      accessLists,
      accessListMembers,
    },
  };
}

export const HOUR_MS = 3_600_000;

export const capitalize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

const LIST_ADJECTIVES = ['Early', 'Based', 'Loyal', 'Onchain', 'Verified', 'Top', 'Active', 'Genesis'];
const LIST_NOUNS = ['Supporters', 'Builders', 'Collectors', 'Traders', 'Voters', 'Minters', 'Holders', 'Friends'];
const LIST_ICONS = ['star', 'shield', 'bolt', 'heart', 'flag', 'gem'];
