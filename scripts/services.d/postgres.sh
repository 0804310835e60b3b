# PostgreSQL for the history-store tests: throwaway clusters (initdb + pg_ctl) in
# $SEXTANT_SERVICES_DIR/postgres*, listening on free loopback ports only, with trust authentication
# for the local user `sextant`. PostgreSQL refuses to run as root: under root (CI) it runs as the
# `postgres` system user the Debian package created. Exports
#   SEXTANT_TEST_POSTGRES=postgres://sextant@127.0.0.1:PORT/postgres
# (tests create a database each from it), and a second cluster that tests may restart and fill up,
# so that no other test shares it:
#   SEXTANT_TEST_POSTGRES_DISRUPT=postgres://sextant@127.0.0.1:PORT2/postgres
#   SEXTANT_TEST_POSTGRES_DISRUPT_DATA=its data directory
#   SEXTANT_TEST_POSTGRES_CTL=the pg_ctl to restart it with
#   SEXTANT_TEST_POSTGRES_RUN_AS=the system user to run pg_ctl as (empty: the current user)
#   SEXTANT_TEST_POSTGRES_SMALL_DIR=a directory on a 24 MB tmpfs owned by that user, for a
#     tablespace that fills up (unset, with SEXTANT_TEST_POSTGRES_SMALL_ERROR, when mount fails)
# Packages: scripts/deps.d/postgres.
_pg_bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
if [ -z "$_pg_bin" ] || [ ! -x "$_pg_bin/pg_ctl" ]; then
  echo "with-services: PostgreSQL is not installed (scripts/deps installs scripts/deps.d/postgres)" >&2
  exit 1
fi
_pg_as=()
_pg_user=""
if [ "$(id -u)" -eq 0 ]; then
  _pg_as=(runuser -u postgres --)
  _pg_user=postgres
fi

# _pg_cluster DIR: initdb and start a cluster in DIR on a free port; prints the port.
_pg_cluster() {
  local dir="$1" port
  mkdir -p "$dir"
  [ -n "$_pg_user" ] && chown "$_pg_user" "$dir"
  port="$(free_port)"
  "${_pg_as[@]}" "$_pg_bin/initdb" -D "$dir/data" -U sextant --auth=trust -E UTF8 --no-sync \
    >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; return 1; }
  # fsync off: a throwaway cluster need not survive a power cut, and the suite runs faster
  # (SEXTANT_POSTGRES_FSYNC=on for a benchmark that should pay for durable commits).
  "${_pg_as[@]}" "$_pg_bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=${SEXTANT_POSTGRES_FSYNC:-off} -c max_connections=200" \
    start >/dev/null || { cat "$dir/server.log" >&2; return 1; }
  wait_for_port "$port" 30 || { echo "with-services: PostgreSQL did not listen on $port" >&2; return 1; }
  echo "$port"
}

_pg_dir="$SEXTANT_SERVICES_DIR/postgres"
_pg_disrupt_dir="$SEXTANT_SERVICES_DIR/postgres-disrupt"
_pg_small="$_pg_disrupt_dir/small"
_pg_small_mounted=""
_pg_stop() {
  local d
  for d in "$_pg_dir" "$_pg_disrupt_dir"; do
    [ -d "$d/data" ] && "${_pg_as[@]}" "$_pg_bin/pg_ctl" -D "$d/data" -m immediate -w stop >/dev/null 2>&1
  done
  [ -n "$_pg_small_mounted" ] && umount "$_pg_small" 2>/dev/null
  return 0
}
on_exit _pg_stop
_pg_port="$(_pg_cluster "$_pg_dir")" || exit 1
export SEXTANT_TEST_POSTGRES="postgres://sextant@127.0.0.1:$_pg_port/postgres"

_pg_disrupt_port="$(_pg_cluster "$_pg_disrupt_dir")" || exit 1
export SEXTANT_TEST_POSTGRES_DISRUPT="postgres://sextant@127.0.0.1:$_pg_disrupt_port/postgres"
export SEXTANT_TEST_POSTGRES_DISRUPT_DATA="$_pg_disrupt_dir/data"
export SEXTANT_TEST_POSTGRES_CTL="$_pg_bin/pg_ctl"
export SEXTANT_TEST_POSTGRES_RUN_AS="$_pg_user"
mkdir -p "$_pg_small"
if _pg_err="$(mount -t tmpfs -o size=24m,mode=0700 tmpfs "$_pg_small" 2>&1)"; then
  _pg_small_mounted=1
  [ -n "$_pg_user" ] && chown "$_pg_user" "$_pg_small"
  export SEXTANT_TEST_POSTGRES_SMALL_DIR="$_pg_small"
else
  export SEXTANT_TEST_POSTGRES_SMALL_ERROR="mount -t tmpfs failed (needs root or CAP_SYS_ADMIN): $_pg_err"
fi
