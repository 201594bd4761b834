-- A JSON string (or null) for any text. The documents are JSON text assembled by concatenation, in
-- the order of the API schemas and in the spacing jsonb prints (`"key": value, ...`); building them as
-- jsonb instead costs three times as much, which a bulk load of 100,000 campaigns feels.
CREATE OR REPLACE FUNCTION json_text(value text) RETURNS text LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT coalesce(to_json(value)::text, 'null');
$$;
