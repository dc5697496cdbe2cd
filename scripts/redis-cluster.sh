# A real local Redis Cluster for scripts/services (`start --redis-cluster`) and the cluster test suite:
# six Debian `redis-server` processes with `--cluster-enabled yes` on loopback, three primaries and
# three replicas made one cluster by `redis-cli --cluster create ... --cluster-replicas 1`.
#
# Ports BASE..BASE+5 (BASE from REDIS_CLUSTER_BASE_PORT, default 7101: clear of the shared single
# Redis on 6390 and of its cluster bus port, BASE+10000). Everything of one cluster lives under
# .data/redis-cluster-BASE (data, logs, pid files), so a test can run its own cluster beside the one
# `scripts/services` starts. Each node writes an append-only file fsynced every second, as the
# single Redis does. Idempotent: nodes already running are left alone, a cluster already formed is
# not formed again. The address of the default cluster goes to .data/redis-cluster.env
# (REDIS_CLUSTER_NODES), never into .data/services.env, which other processes read for the single Redis.
# shellcheck shell=bash

cluster_base() { echo "${REDIS_CLUSTER_BASE_PORT:-7101}"; }
cluster_dir() { echo "$data/redis-cluster-$(cluster_base)"; }
cluster_ports() { local b; b=$(cluster_base); seq "$b" $((b + 5)); }
cluster_nodes() { cluster_ports | sed 's/^/127.0.0.1:/' | paste -sd, -; }

start_cluster_node() { # start_cluster_node PORT
  local port=$1 dir
  dir="$(cluster_dir)/$port"
  mkdir -p "$dir"
  [ -f "$dir/redis.pid" ] && kill -0 "$(cat "$dir/redis.pid")" 2>/dev/null && return 0
  redis-server --bind 127.0.0.1 --port "$port" --dir "$dir" \
    --cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 2000 \
    --appendonly yes --appendfsync everysec --save "" \
    --daemonize yes --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" ||
    die "redis-server failed to start on $port; see $dir/redis.log"
}

start_redis_cluster() {
  command -v redis-server >/dev/null || apt_install redis-server
  local port first
  for port in $(cluster_ports); do start_cluster_node "$port"; done
  for port in $(cluster_ports); do wait_port "$port" "redis cluster node" "$(cluster_dir)/$port/redis.log"; done
  first=$(cluster_base)
  if ! redis-cli -p "$first" cluster info | grep -q '^cluster_state:ok'; then
    if [ "$(redis-cli -p "$first" cluster info | sed -n 's/^cluster_known_nodes:\([0-9]*\).*/\1/p')" = 1 ]; then
      # shellcheck disable=SC2046
      redis-cli --cluster create $(cluster_ports | sed 's/^/127.0.0.1:/') --cluster-replicas 1 --cluster-yes \
        >"$(cluster_dir)/create.log" 2>&1 || { tail -n 20 "$(cluster_dir)/create.log" >&2; die "redis-cli --cluster create failed"; }
    fi
  fi
  # Every node must agree before a client connects (a node that has not yet heard of the new slot
  # map answers CLUSTERDOWN).
  for port in $(cluster_ports); do
    for _ in $(seq 1 100); do
      redis-cli -p "$port" cluster info | grep -q '^cluster_state:ok' && break
      sleep 0.1
    done
    redis-cli -p "$port" cluster info | grep -q '^cluster_state:ok' || die "the Redis cluster node $port did not become ok"
  done
  # The address of the cluster `scripts/services` runs (the default ports); a test's own is its own.
  [ "$(cluster_base)" != 7101 ] || printf 'export REDIS_CLUSTER_NODES=%s\n' "$(cluster_nodes)" >"$data/redis-cluster.env"
}

stop_redis_cluster() {
  local port pid dir
  for port in $(cluster_ports); do
    dir="$(cluster_dir)/$port"
    [ -f "$dir/redis.pid" ] || continue
    pid=$(cat "$dir/redis.pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$dir/redis.pid"
  done
}

status_redis_cluster() {
  if redis-cli -p "$(cluster_base)" cluster info 2>/dev/null | grep -q '^cluster_state:ok'; then
    echo "redis cluster: $(cluster_nodes)"
  else
    echo "redis cluster: stopped"
  fi
}
