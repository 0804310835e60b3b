# PostgreSQL for the history-store tests: a throwaway cluster (initdb + pg_ctl) in
# $SEXTANT_SERVICES_DIR/postgres, listening on a free loopback port only, with trust authentication
# for the local user `sextant`. PostgreSQL refuses to run as root: under root (CI) it runs as the
# `postgres` system user the Debian package created. Exports
#   SEXTANT_TEST_POSTGRES=postgres://sextant@127.0.0.1:PORT/postgres
# (tests create a database each from it). Packages: scripts/deps.d/postgres.
_pg_bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
if [ -z "$_pg_bin" ] || [ ! -x "$_pg_bin/pg_ctl" ]; then
  echo "with-services: PostgreSQL is not installed (scripts/deps installs scripts/deps.d/postgres)" >&2
  exit 1
fi
_pg_dir="$SEXTANT_SERVICES_DIR/postgres"
_pg_as=()
mkdir -p "$_pg_dir"
if [ "$(id -u)" -eq 0 ]; then
  _pg_as=(runuser -u postgres --)
  chown postgres "$_pg_dir"
fi
_pg_port="$(free_port)"
"${_pg_as[@]}" "$_pg_bin/initdb" -D "$_pg_dir/data" -U sextant --auth=trust -E UTF8 --no-sync \
  >"$_pg_dir/initdb.log" 2>&1 || { cat "$_pg_dir/initdb.log" >&2; exit 1; }
# fsync off: a throwaway cluster need not survive a power cut, and the suite runs faster
# (SEXTANT_POSTGRES_FSYNC=on for a benchmark that should pay for durable commits).
"${_pg_as[@]}" "$_pg_bin/pg_ctl" -D "$_pg_dir/data" -l "$_pg_dir/server.log" -w -t 60 \
  -o "-c listen_addresses=127.0.0.1 -p $_pg_port -k $_pg_dir -c fsync=${SEXTANT_POSTGRES_FSYNC:-off} -c max_connections=200" \
  start >/dev/null || { cat "$_pg_dir/server.log" >&2; exit 1; }
_pg_stop() { "${_pg_as[@]}" "$_pg_bin/pg_ctl" -D "$_pg_dir/data" -m immediate -w stop >/dev/null 2>&1; }
on_exit _pg_stop
wait_for_port "$_pg_port" 30 || { echo "with-services: PostgreSQL did not listen on $_pg_port" >&2; exit 1; }
export SEXTANT_TEST_POSTGRES="postgres://sextant@127.0.0.1:$_pg_port/postgres"
