# Shared by scripts/start, scripts/test and scripts/bench: install what is missing, build.
# shellcheck shell=bash

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Installs the locked dependencies when node_modules is missing or older than the lockfile.
# `npm install`, not `npm ci`: it installs exactly the locked versions too, but npm 11 writes lockfiles
# (with omit-lockfile-registry-resolved) that lack other platforms' optional packages, which `npm ci`
# then refuses as out of sync.
ensure_node_modules() {
  local stamp="$root/node_modules/.package-lock.json"
  if [ ! -f "$stamp" ] || [ "$root/package-lock.json" -nt "$stamp" ]; then
    (cd "$root" && npm install --no-audit --no-fund --loglevel=error) || { echo "npm install failed" >&2; exit 1; }
  fi
}

# Compile every package (tsc -b: only what changed).
build() {
  (cd "$root" && npx --no-install tsc -b) || { echo "build failed" >&2; exit 1; }
}

# Debian packages the project needs beyond Node (nginx for the edge).
ensure_apt() { # ensure_apt COMMAND PACKAGE
  command -v "$1" >/dev/null && return 0
  local sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  mkdir -p "$root/.data"
  { $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" ||
    { $sudo apt-get update -qq && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2"; }; } \
    >"$root/.data/apt-$2.log" 2>&1 || { tail -n 20 "$root/.data/apt-$2.log" >&2; echo "could not install $2" >&2; exit 1; }
}

# Writes the edge's nginx configuration for LISTEN_PORT, AUTH_UPSTREAM and API_UPSTREAM into DIR.
write_edge_config() { # write_edge_config DIR
  local dir=$1
  mkdir -p "$dir/conf.d" "$dir/logs" "$dir/tmp"
  LISTEN_PORT=$LISTEN_PORT AUTH_UPSTREAM=$AUTH_UPSTREAM API_UPSTREAM=$API_UPSTREAM \
    envsubst '${LISTEN_PORT} ${AUTH_UPSTREAM} ${API_UPSTREAM}' <"$root/docker/edge.conf.template" >"$dir/conf.d/edge.conf"
  cat >"$dir/nginx.conf" <<CONF
$( [ "$(id -u)" = 0 ] && echo 'user root;' )
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/logs/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $dir/tmp/body;
  proxy_temp_path $dir/tmp/proxy;
  fastcgi_temp_path $dir/tmp/fastcgi;
  uwsgi_temp_path $dir/tmp/uwsgi;
  scgi_temp_path $dir/tmp/scgi;
  include $dir/conf.d/edge.conf;
}
CONF
}

# Waits until an HTTP URL answers (any status); fails after ~20 s.
wait_http() { # wait_http URL NAME LOG
  for _ in $(seq 1 200); do
    curl -s -o /dev/null "$1" && return 0
    sleep 0.1
  done
  echo "$2 did not come up at $1; its log:" >&2
  tail -n 30 "$3" >&2 || true
  return 1
}
