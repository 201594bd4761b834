-- A jsonb value as compact JSON text, the formatting of every answer. jsonb prints one space after
-- each `,` and `:` between elements (`{"a": 1, "b": [1, 2]}`) and no other whitespace outside
-- strings: replace() takes those out, unless a string (key or value) holds `, ` or `: ` itself. The
-- first pattern finds such a string without capturing anything, which PostgreSQL matches in one
-- linear pass; only then does the second pattern run, which steps over whole strings and keeps them
-- as they are, but costs far more. The documents' jsonb values (incentive params, action step
-- parameters) hold addresses, numbers and hex data, so that is the rare path.
-- PL/pgSQL so that the value is printed once: an inlined SQL function would print it for the test
-- and again for the result.
CREATE OR REPLACE FUNCTION json_compact(value jsonb) RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  spaced text := value::text;
BEGIN
  IF spaced ~ '^(?:[^"]|"(?:[^"\\]|\\.)*")*"(?:[^"\\]|\\.)*[,:] ' THEN
    RETURN regexp_replace(spaced, '("(?:[^"\\]|\\.)*")|([,:]) ', '\1\2', 'g');
  END IF;
  RETURN replace(replace(spaced, ', ', ','), ': ', ':');
END
$$;
