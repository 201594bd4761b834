-- A float8 as a JSON number the way JavaScript, and so every other answer, prints it. PostgreSQL
-- prints the same shortest digits, but in exponent form below 1e-4 and from 1e15 on, with at least
-- two exponent digits (`5.1e-05`), where JavaScript writes the digits out from 1e-6 up to 1e21
-- (`0.000051`) and no leading zero in an exponent (`1e-7`). The text has no exponent most of the time.
CREATE OR REPLACE FUNCTION json_number(value float8) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN strpos(value::text, 'e') = 0 THEN value::text
              WHEN abs(value) >= 1e-6 AND abs(value) < 1e21 THEN value::text::numeric::text
              ELSE regexp_replace(value::text, 'e([+-])0+', 'e\1') END;
$$;
