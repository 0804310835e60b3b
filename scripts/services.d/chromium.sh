# Sourced by scripts/with-services: a headless Chromium with its DevTools endpoint on a loopback port,
# for the live map's browser test. Exports SEXTANT_TEST_CHROMIUM=127.0.0.1:PORT (scripts/map-check
# opens a page there for each check).

_chromium_bin="$(command -v chromium || command -v chromium-browser || true)"
if [ -z "$_chromium_bin" ]; then
  echo "with-services: chromium is not installed (scripts/deps installs it); the browser test will fail" >&2
else
  _chromium_dir="$SEXTANT_SERVICES_DIR/chromium"
  mkdir -p "$_chromium_dir"
  _chromium_port="$(free_port)"
  # --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start. No throttling of pages
  # nobody looks at: the test measures what a visible page does.
  # In a session of its own, so that its stop reaches the renderer and helper processes too, which
  # otherwise go on writing the profile while the directory is removed.
  setsid "$_chromium_bin" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
    --no-default-browser-check --disable-extensions --disable-background-networking \
    --disable-background-timer-throttling --disable-renderer-backgrounding \
    --disable-backgrounding-occluded-windows --disable-component-update --mute-audio \
    --remote-debugging-address=127.0.0.1 --remote-debugging-port="$_chromium_port" \
    --user-data-dir="$_chromium_dir/profile" about:blank > "$_chromium_dir/chromium.log" 2>&1 &
  _chromium_pid=$!
  _stop_chromium() {
    local i
    kill -TERM -- "-$_chromium_pid" 2>/dev/null || return 0
    for i in $(seq 50); do kill -0 -- "-$_chromium_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$_chromium_pid" 2>/dev/null || true
    wait "$_chromium_pid" 2>/dev/null || true
  }
  on_exit _stop_chromium
  if wait_for_port "$_chromium_port" 30; then
    export SEXTANT_TEST_CHROMIUM="127.0.0.1:$_chromium_port"
  else
    echo "with-services: chromium did not open 127.0.0.1:$_chromium_port; the browser test will fail:" >&2
    tail -20 "$_chromium_dir/chromium.log" >&2 || true
  fi
fi
