#!/bin/sh
# What the official nginx image's entrypoint does before starting nginx (its
# 20-envsubst-on-templates.sh): every /etc/nginx/templates/NAME.template becomes
# /etc/nginx/conf.d/NAME, with only the environment variables NGINX_ENVSUBST_FILTER matches replaced.
set -e
if [ "$1" = nginx ]; then
  filter=${NGINX_ENVSUBST_FILTER:-}
  vars=$(env | cut -d= -f1 | grep -E -- "${filter:-.}" | sed 's/.*/${&}/' | tr '\n' ' ')
  for template in /etc/nginx/templates/*.template; do
    [ -f "$template" ] || continue
    name=$(basename "$template" .template)
    envsubst "$vars" <"$template" >"/etc/nginx/conf.d/$name"
  done
fi
exec "$@"
