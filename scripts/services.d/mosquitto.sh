# Sourced by scripts/with-services: a throwaway mosquitto broker on a loopback port for the MQTT tests.
# Exports SEXTANT_TEST_MQTT=127.0.0.1:PORT, and SEXTANT_TEST_MOSQUITTO (the broker binary) so a test
# can run a private broker of its own (stopped and started again to see reconnection).

_mosquitto_bin="$(command -v mosquitto || true)"
[ -n "$_mosquitto_bin" ] || { [ -x /usr/sbin/mosquitto ] && _mosquitto_bin=/usr/sbin/mosquitto; }
if [ -z "$_mosquitto_bin" ]; then
  echo "with-services: mosquitto is not installed (scripts/deps installs it); the MQTT tests will fail" >&2
else
  _mosquitto_dir="$SEXTANT_SERVICES_DIR/mosquitto"
  mkdir -p "$_mosquitto_dir"
  _mosquitto_port="$(free_port)"
  # Loopback only, anonymous, no persistence file; queues large enough for the tests' bursts.
  cat > "$_mosquitto_dir/mosquitto.conf" <<CONF
listener $_mosquitto_port 127.0.0.1
allow_anonymous true
persistence false
max_queued_messages 0
max_inflight_messages 0
log_dest file $_mosquitto_dir/mosquitto.log
CONF
  # As root, mosquitto would switch to the 'mosquitto' user; keep the current user instead.
  [ "$(id -u)" -eq 0 ] && echo "user root" >> "$_mosquitto_dir/mosquitto.conf"
  "$_mosquitto_bin" -c "$_mosquitto_dir/mosquitto.conf" > "$_mosquitto_dir/stdout.log" 2>&1 &
  _mosquitto_pid=$!
  _stop_mosquitto() { kill "$_mosquitto_pid" 2>/dev/null && wait "$_mosquitto_pid" 2>/dev/null; }
  on_exit _stop_mosquitto
  if wait_for_port "$_mosquitto_port" 10; then
    export SEXTANT_TEST_MQTT="127.0.0.1:$_mosquitto_port"
    export SEXTANT_TEST_MOSQUITTO="$_mosquitto_bin"
  else
    echo "with-services: mosquitto did not start on 127.0.0.1:$_mosquitto_port; the MQTT tests will fail:" >&2
    cat "$_mosquitto_dir/stdout.log" "$_mosquitto_dir/mosquitto.log" >&2 2>/dev/null || true
  fi
fi
