ALTER TABLE "access_list_members" DROP CONSTRAINT "access_list_members_address_format";--> statement-breakpoint
ALTER TABLE "action_steps" DROP CONSTRAINT "action_steps_target_format";--> statement-breakpoint
ALTER TABLE "action_steps" DROP CONSTRAINT "action_steps_claimant_format";--> statement-breakpoint
ALTER TABLE "allow_list_addresses" DROP CONSTRAINT "allow_list_addresses_format";--> statement-breakpoint
ALTER TABLE "allow_lists" DROP CONSTRAINT "allow_lists_contract_format";--> statement-breakpoint
ALTER TABLE "allow_lists" DROP CONSTRAINT "allow_lists_owner_format";--> statement-breakpoint
ALTER TABLE "campaigns" DROP CONSTRAINT "campaigns_core_address_format";--> statement-breakpoint
ALTER TABLE "campaigns" DROP CONSTRAINT "campaigns_owner_format";--> statement-breakpoint
ALTER TABLE "campaigns" DROP CONSTRAINT "campaigns_creator_format";--> statement-breakpoint
ALTER TABLE "campaigns" DROP CONSTRAINT "campaigns_budget_format";--> statement-breakpoint
ALTER TABLE "campaigns" DROP CONSTRAINT "campaigns_validator_format";--> statement-breakpoint
ALTER TABLE "campaigns" DROP CONSTRAINT "campaigns_action_format";--> statement-breakpoint
ALTER TABLE "campaigns" DROP CONSTRAINT "campaigns_action_token_format";--> statement-breakpoint
ALTER TABLE "claim_signatures" DROP CONSTRAINT "claim_signatures_claimant_format";--> statement-breakpoint
ALTER TABLE "claim_signatures" DROP CONSTRAINT "claim_signatures_referrer_format";--> statement-breakpoint
ALTER TABLE "claims" DROP CONSTRAINT "claims_claimant_format";--> statement-breakpoint
ALTER TABLE "contracts" DROP CONSTRAINT "contracts_address_format";--> statement-breakpoint
ALTER TABLE "tokens" DROP CONSTRAINT "tokens_address_format";--> statement-breakpoint
ALTER TABLE "users" DROP CONSTRAINT "users_address_format";--> statement-breakpoint
ALTER TABLE "access_list_members" ADD CONSTRAINT "access_list_members_address_format" CHECK (length(address) = 42 AND address ~ '^0x[0-9a-f]*$');--> statement-breakpoint
ALTER TABLE "action_steps" ADD CONSTRAINT "action_steps_target_format" CHECK (length(target_contract) = 42 AND target_contract ~ '^0x[0-9a-f]*$');--> statement-breakpoint
ALTER TABLE "action_steps" ADD CONSTRAINT "action_steps_claimant_format" CHECK (claimant IS NULL OR (length(claimant) = 42 AND claimant ~ '^0x[0-9a-f]*$'));--> statement-breakpoint
ALTER TABLE "allow_list_addresses" ADD CONSTRAINT "allow_list_addresses_format" CHECK (length(address) = 42 AND address ~ '^0x[0-9a-f]*$');--> statement-breakpoint
ALTER TABLE "allow_lists" ADD CONSTRAINT "allow_lists_contract_format" CHECK (length(contract_address) = 42 AND contract_address ~ '^0x[0-9a-f]*$');--> statement-breakpoint
ALTER TABLE "allow_lists" ADD CONSTRAINT "allow_lists_owner_format" CHECK (length(owner) = 42 AND owner ~ '^0x[0-9a-f]*$');--> statement-breakpoint
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_core_address_format" CHECK (length(core_address) = 42 AND core_address ~ '^0x[0-9a-f]*$');--> statement-breakpoint
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_owner_format" CHECK (length(owner) = 42 AND owner ~ '^0x[0-9a-f]*$');--> statement-breakpoint
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_creator_format" CHECK (length(creator) = 42 AND creator ~ '^0x[0-9a-f]*$');--> statement-breakpoint
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_budget_format" CHECK (length(budget) = 42 AND budget ~ '^0x[0-9a-f]*$');--> statement-breakpoint
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_validator_format" CHECK (length(validator) = 42 AND validator ~ '^0x[0-9a-f]*$');--> statement-breakpoint
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_action_format" CHECK (length(action) = 42 AND action ~ '^0x[0-9a-f]*$');--> statement-breakpoint
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_action_token_format" CHECK (action_token_address IS NULL OR (length(action_token_address) = 42 AND action_token_address ~ '^0x[0-9a-f]*$'));--> statement-breakpoint
ALTER TABLE "claim_signatures" ADD CONSTRAINT "claim_signatures_claimant_format" CHECK (length(claimant) = 42 AND claimant ~ '^0x[0-9a-f]*$');--> statement-breakpoint
ALTER TABLE "claim_signatures" ADD CONSTRAINT "claim_signatures_referrer_format" CHECK (length(referrer) = 42 AND referrer ~ '^0x[0-9a-f]*$');--> statement-breakpoint
ALTER TABLE "claims" ADD CONSTRAINT "claims_claimant_format" CHECK (length(claimant) = 42 AND claimant ~ '^0x[0-9a-f]*$');--> statement-breakpoint
ALTER TABLE "contracts" ADD CONSTRAINT "contracts_address_format" CHECK (length(address) = 42 AND address ~ '^0x[0-9a-f]*$');--> statement-breakpoint
ALTER TABLE "tokens" ADD CONSTRAINT "tokens_address_format" CHECK (length(address) = 42 AND address ~ '^0x[0-9a-f]*$');--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_address_format" CHECK (length(address) = 42 AND address ~ '^0x[0-9a-f]*$');