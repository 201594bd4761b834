-- The history tables as of now, and the snapshot they stand at (claimant_firsts and claim_history_applied are new).
SELECT recompute_claim_history();
