#!/bin/sh
# As the official redis image's entrypoint: `redis-server …` runs as the redis user, in /data, with
# protected mode off (the official image builds Redis so).
set -e
if [ "$1" = redis-server ]; then
  case " $* " in
  *" -v "* | *" --version "* | *" -h "* | *" --help "*) ;;
  *) set -- "$@" --protected-mode no ;;
  esac
  if [ "$(id -u)" = 0 ]; then
    chown -R redis:redis /data 2>/dev/null || true
    exec setpriv --reuid=redis --regid=redis --init-groups "$@"
  fi
fi
exec "$@"
