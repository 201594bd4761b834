import type { TSchema } from '@sinclair/typebox';
import { ActionClaimant, ActionStep, AllowList, CampaignDetail, CampaignList, CampaignListItem } from './campaigns.js';
import { AccessList, AccessListPage } from './access-lists.js';
import { Address, BigIntString, CampaignId, ErrorResponse } from './common.js';
import { Criteria, CriteriaV2, INCENTIVE_VARIANTS, Incentive, TokenMetadata } from './incentives.js';
import { Streak, UserProfile } from './profile.js';
import { ContractEntry, ContractList } from './contracts.js';
import {
  ActionTemplateDetail,
  BlocklistStatus,
  BudgetAccount,
  BudgetAccountList,
  BudgetAccountListItem,
  ClaimableSignature,
  ClaimableSignatureList,
  KnownSignature,
  KnownSignaturePage,
  TemplateItem,
  TemplateList,
} from './registry.js';
import { ActivityEvent, ActivityPage, ExploreList } from './explore.js';
import { CampaignHistory, HistoryBucket } from './history.js';
import { IssuedSignature, IssuedSignatureList, SignatureError, SignatureRefusal } from './signatures.js';
import { Leaderboard, LeaderboardEntry } from './leaderboard.js';
import { CampaignEvent, CampaignRemovedEvent, ClaimEvent, RefetchEvent, SignatureIssuedEvent, TrendingEvent } from './events.js';
import { Reward, RewardList, RewardProfile } from './reward-kit.js';
import { ActionTemplate, ActionTokenMetadata, ClaimSignature, TrendingEntry, TrendingIncentive, TrendingList } from './trending.js';

/**
 * Every reusable schema, registered once with `app.addSchema` in this order (a schema after
 * the ones it references). Each becomes a named component of the OpenAPI document.
 */
export const SHARED_SCHEMAS: TSchema[] = [
  Address,
  BigIntString,
  CampaignId,
  ErrorResponse,
  TokenMetadata,
  Criteria,
  CriteriaV2,
  ...INCENTIVE_VARIANTS,
  Incentive,
  ActionStep,
  AllowList,
  ActionClaimant,
  CampaignListItem,
  CampaignList,
  CampaignDetail,
  TrendingIncentive,
  ActionTemplate,
  ClaimSignature,
  ActionTokenMetadata,
  TrendingEntry,
  TrendingList,
  ContractEntry,
  ContractList,
  Streak,
  UserProfile,
  AccessList,
  AccessListPage,
  KnownSignature,
  KnownSignaturePage,
  ClaimableSignature,
  ClaimableSignatureList,
  IssuedSignature,
  IssuedSignatureList,
  SignatureRefusal,
  SignatureError,
  BlocklistStatus,
  ActionTemplateDetail,
  TemplateItem,
  TemplateList,
  BudgetAccount,
  BudgetAccountListItem,
  BudgetAccountList,
  RewardList,
  RewardProfile,
  Reward,
  ExploreList,
  ActivityEvent,
  ActivityPage,
  HistoryBucket,
  CampaignHistory,
  LeaderboardEntry,
  Leaderboard,
  ClaimEvent,
  CampaignEvent,
  CampaignRemovedEvent,
  TrendingEvent,
  SignatureIssuedEvent,
  RefetchEvent,
];
