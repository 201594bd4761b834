-- Token metadata as the API shows it, or null for a token the service does not know.
CREATE OR REPLACE FUNCTION token_metadata_json(t tokens) RETURNS text LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN t.address IS NULL THEN 'null' ELSE
    '{"id":"' || t.id || '","chainId":' || t.chain_id || ',"address":"' || t.address
    || '","decimals":' || t.decimals || ',"name":' || json_text(t.name) || ',"symbol":' || json_text(t.symbol)
    || ',"imageUri":' || json_text(t.image_uri) || '}' END;
$$;
