#!/bin/sh
# Writes PgBouncer's user list from POSTGRES_PASSWORD (the compose file passes the one PostgreSQL
# was given), then runs PgBouncer in this process's place. The password stays in .env, out of the image.
set -eu
: "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is not set: PgBouncer needs the password of the role campaigns}"
# The user list's format doubles a double quote inside a quoted value.
printf '"campaigns" "%s"\n' "$(printf '%s' "$POSTGRES_PASSWORD" | sed 's/"/""/g')" > /etc/pgbouncer/userlist.txt
exec pgbouncer /etc/pgbouncer/pgbouncer.ini
