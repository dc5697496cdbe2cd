# syntax=docker/dockerfile:1
# The auth server: build with the whole workspace, ship only its production dependencies and output.
# The dependencies ship without what only a compiler or a reader uses (TypeScript sources and types,
# source maps, Markdown): a quarter of their size.
# Build from the repository root: docker build -f docker/auth-server.Dockerfile .
# The base image: the official Node.js 22 image by default. NODE_IMAGE names another one with the
# same layout, e.g. the local stand-in scripts/standin-images builds where no registry is reachable.
ARG NODE_IMAGE=node:22-bookworm-slim
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.base.json tsconfig.json ./
COPY packages/shared/package.json packages/shared/
COPY packages/auth-server/package.json packages/auth-server/
COPY packages/resource-api/package.json packages/resource-api/
RUN npm install --no-audit --no-fund
COPY packages/shared packages/shared
COPY packages/auth-server packages/auth-server
RUN npx tsc -b packages/auth-server \
 && npm install --omit=dev --no-audit --no-fund --workspace @school/auth-server --include-workspace-root=false \
 && mkdir -p packages/auth-server/node_modules \
 && find node_modules packages/auth-server/node_modules -type f \( -name '*.ts' -o -name '*.mts' -o -name '*.cts' \
      -o -name '*.map' -o -name '*.md' -o -name '*.markdown' \) -delete

FROM ${NODE_IMAGE}
ENV NODE_ENV=production AUTH_HOST=0.0.0.0 AUTH_PORT=8082 KEYS_FILE=/var/lib/school-auth/keys/jwks.json
WORKDIR /app
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/package.json ./
COPY --from=build /app/packages/shared/package.json packages/shared/
COPY --from=build /app/packages/shared/dist packages/shared/dist
COPY --from=build /app/packages/auth-server/package.json packages/auth-server/
# Dependencies npm could not hoist (another version sits at the root) live beside the package.
COPY --from=build /app/packages/auth-server/node_modules packages/auth-server/node_modules
COPY --from=build /app/packages/auth-server/dist packages/auth-server/dist
RUN mkdir -p /var/lib/school-auth/keys && chown -R node:node /var/lib/school-auth
# The base image's `node` user, by number (uid and gid 1000): a kubelet can check runAsNonRoot only
# against a numeric user.
USER 1000:1000
VOLUME ["/var/lib/school-auth"]
EXPOSE 8082
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.AUTH_PORT+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Flags: packages/auth-server/src/node-flags.ts (oidc-provider's AsyncLocalStorage without async_hooks).
CMD ["node", "--experimental-async-context-frame", "packages/auth-server/dist/main.js"]
