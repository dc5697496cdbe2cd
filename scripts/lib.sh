# Shared by scripts/start, scripts/test and scripts/bench: install what is missing, build.
# shellcheck shell=bash

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Node.js 22 LTS: oidc-provider 9 supports Node 22 and later, and Node 20 is past its end of
# life. When the machine's `node` is older, the npm registry's `node` package (a prebuilt binary, no
# other download) is installed once into .data/node22 and put first on PATH, so every script, test
# and service process below runs on it (child processes inherit PATH; the tests spawn
# `process.execPath`).
NODE_VERSION=22.23.3
ensure_node() {
  local major
  major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
  [ "$major" -ge "${NODE_VERSION%%.*}" ] && return 0
  local dir="$root/.data/node${NODE_VERSION%%.*}"
  if [ "$("$dir/node_modules/.bin/node" --version 2>/dev/null)" != "v$NODE_VERSION" ]; then
    mkdir -p "$dir"
    npm install --prefix "$dir" --no-audit --no-fund --no-package-lock --loglevel=error "node@$NODE_VERSION" \
      >"$root/.data/node-install.log" 2>&1 || { tail -n 20 "$root/.data/node-install.log" >&2; echo "could not install Node.js $NODE_VERSION" >&2; exit 1; }
  fi
  export PATH="$dir/node_modules/.bin:$PATH"
  hash -r
}
ensure_node

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

# Writes the edge's nginx configuration for LISTEN_PORT, AUTH_UPSTREAM, API_UPSTREAM and
# EDGE_TRUSTED_PROXY (the ingress trusted to name the client; default `unix:`, no network peer) into DIR.
# AUTH_UPSTREAM and API_UPSTREAM may list several instances, `host:port host:port`: the template's
# `server ${AUTH_UPSTREAM};` then gets `a:1; server b:2` (one nginx `server` line each).
write_edge_config() { # write_edge_config DIR
  local dir=$1
  mkdir -p "$dir/conf.d" "$dir/logs" "$dir/tmp"
  local address
  address=$(edge_listen_address)
  LISTEN_PORT=${address:+$address:}$LISTEN_PORT AUTH_UPSTREAM=$(upstream_servers "$AUTH_UPSTREAM") API_UPSTREAM=$(upstream_servers "$API_UPSTREAM") \
    EDGE_TRUSTED_PROXY=${EDGE_TRUSTED_PROXY:-unix:} \
    envsubst '${LISTEN_PORT} ${AUTH_UPSTREAM} ${API_UPSTREAM} ${EDGE_TRUSTED_PROXY}' \
    <"$root/docker/edge.conf.template" >"$dir/conf.d/edge.conf"
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

# The address the edge listens on, for nginx's `listen ADDRESS:PORT`: EDGE_LISTEN_ADDRESS when set
# (`0.0.0.0` or `[::]` opens the edge to the network deliberately); otherwise BASE_URL's own host when
# that is a loopback one (`localhost` as 127.0.0.1), so a laptop's sign-in page and open registration
# do not face the local network; otherwise nothing: every interface, as a server behind a real name
# needs.
edge_listen_address() {
  if [ -n "${EDGE_LISTEN_ADDRESS:-}" ]; then
    echo "$EDGE_LISTEN_ADDRESS"
    return
  fi
  node -e '
    const host = new URL(process.argv[1]).hostname;
    if (/^127(\.\d{1,3}){3}$/.test(host) || host === "[::1]") console.log(host);
    else if (host === "localhost") console.log("127.0.0.1");' "$BASE_URL"
}

# `a:1 b:2` → `a:1; server b:2` (see write_edge_config).
upstream_servers() { # upstream_servers LIST
  echo "$1" | xargs | sed 's/ /; server /g'
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

# A random secret: 64 hex characters (256 bits) from the kernel's generator, no other tool needed.
random_secret() {
  od -An -tx1 -N32 /dev/urandom | tr -d ' \n'
}

# The settings scripts/start runs the services with, unless the environment sets them: shared with
# scripts/auth, so the operator command works on the installation scripts/start made.
installation_defaults() {
  export BASE_URL=${BASE_URL:-http://127.0.0.1:8080}
  export AUTH_PORT=${AUTH_PORT:-8082}
  export API_PORT=${API_PORT:-8081}
  export KEYS_FILE=${KEYS_FILE:-$root/.data/keys/jwks.json}
  export TRUST_PROXY=${TRUST_PROXY:-true}
  # The demo school's term ends eight weeks from today, so the consent page offers "This term".
  export SCHOOL_TERM_ENDS=${SCHOOL_TERM_ENDS:-$(node -e 'console.log(new Date(Date.now() + 56 * 864e5).toISOString().slice(0, 10))')}
}

# Per-installation secrets: on first use creates FILE (mode 0600) with random
# COOKIE_SECRETS, INTROSPECTION_CLIENT_SECRET and SEED_ADMIN_PASSWORD, adds any of them missing on
# later runs (keeping the rest), and exports each one not already set in the environment (an
# explicitly set variable wins). The services refuse to start without secrets outside NODE_ENV=test.
ensure_secrets() { # ensure_secrets FILE
  local file=$1 name value
  mkdir -p "$(dirname "$file")"
  if [ ! -f "$file" ]; then
    (umask 077 && printf '# Generated by scripts/start for this installation; keep private (mode 0600).\n' >"$file")
  fi
  chmod 600 "$file"
  for name in COOKIE_SECRETS INTROSPECTION_CLIENT_SECRET SEED_ADMIN_PASSWORD; do
    grep -q "^$name=" "$file" || echo "$name=$(random_secret)" >>"$file"
  done
  while IFS='=' read -r name value; do
    case "$name" in '' | '#'*) continue ;; esac
    [ -n "${!name:-}" ] || export "$name=$value"
  done <"$file"
}
