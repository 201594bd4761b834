-- ISO 8601 in UTC with milliseconds, the format of JavaScript's Date.toISOString().
CREATE OR REPLACE FUNCTION iso_utc(t timestamptz) RETURNS text LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');
$$;
