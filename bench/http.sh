#!/usr/bin/env bash
# The HTTP server under load: wrk against bench/HTTP (HTTPServer answering a fixed body of
# BODY_BYTES, default 2048) on 127.0.0.1, CONNECTIONS keep-alive connections (default 32)
# for SECONDS (default 10); then, when nginx is installed, the same load on nginx serving the
# same bytes from a file, as a reference. Needs wrk (apt-get install wrk); builds in release.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
body=${BODY_BYTES:-2048}
connections=${CONNECTIONS:-32}
seconds=${SECONDS_TO_RUN:-10}
threads=${WRK_THREADS:-2}
command -v wrk >/dev/null || { echo "bench/http.sh: wrk is missing (apt-get install wrk)" >&2; exit 1; }
work=$(mktemp -d /tmp/iapsim-http-bench.XXXXXX)
pids=()
cleanup() {
  # nginx's master stops its workers and reaps them; killing it would leave them to init.
  [ -f "$work/nginx.pid" ] && nginx -c "$work/nginx.conf" -p "$work" -s quit 2>/dev/null
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

flags=(-c release)
[ "$(uname -s)" = Linux ] && flags+=(--static-swift-stdlib)
(cd "$root/bench/HTTP" && swift build "${flags[@]}" --disable-build-manifest-caching >/dev/null)
binary="$root/bench/HTTP/$(cd "$root/bench/HTTP" && swift build "${flags[@]}" --show-bin-path | sed "s|.*/bench/HTTP/||")/HTTPBench"

load() { # load NAME URL
  echo "== $1: wrk -t$threads -c$connections -d${seconds}s --latency $2"
  wrk -t"$threads" -c"$connections" -d"${seconds}s" --latency "$2" | grep -E "Requests/sec|Transfer/sec|^ +(50|90|99)%|Socket errors|Non-2xx"
}

"$binary" 0 "$body" >"$work/port" &
pids+=($!)
for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
port=$(cat "$work/port")
[ -n "$port" ] || { echo "bench/http.sh: the server did not start" >&2; exit 1; }
load "iapsim HTTPServer, $body-byte body" "http://127.0.0.1:$port/inApps/v1/history/1"

if command -v nginx >/dev/null; then
  head -c "$body" /dev/zero | tr '\0' x >"$work/body.json"
  chmod 755 "$work"  # nginx's workers run as another user
  chmod 644 "$work/body.json"
  nginx_port=$((port + 1))
  mkdir -p "$work/nginx"
  cat >"$work/nginx.conf" <<CONF
daemon off;
worker_processes auto;
pid $work/nginx.pid;
error_log $work/nginx/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $work/nginx; proxy_temp_path $work/nginx; fastcgi_temp_path $work/nginx;
  uwsgi_temp_path $work/nginx; scgi_temp_path $work/nginx;
  keepalive_requests 1000000;
  server {
    listen 127.0.0.1:$nginx_port;
    location / { default_type application/json; root $work; try_files /body.json =404; }
  }
}
CONF
  nginx -c "$work/nginx.conf" -p "$work" &
  pids+=($!)
  sleep 0.5
  wrk -t1 -c1 -d1s "http://127.0.0.1:$nginx_port/" | grep -q "Non-2xx" && { echo "bench/http.sh: nginx does not serve the file" >&2; exit 1; }
  load "nginx ($(nproc) workers), the same bytes from a file" "http://127.0.0.1:$nginx_port/inApps/v1/history/1"
fi
