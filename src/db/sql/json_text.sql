-- A JSON string (or null) for any text. The documents are JSON text assembled by concatenation, in
-- the order of the API schemas and compact (`"key":value,...`, as every answer): building them as
-- jsonb instead costs far more, which a bulk load of many campaigns feels, and jsonb prints spaces.
CREATE OR REPLACE FUNCTION json_text(value text) RETURNS text LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT coalesce(to_json(value)::text, 'null');
$$;
