# syntax=docker/dockerfile:1
# The resource API: build with the whole workspace, ship only its production dependencies and output.
# The dependencies ship without what only a compiler or a reader uses (TypeScript sources and types,
# source maps, Markdown): a quarter of their size.
# Build from the repository root: docker build -f docker/resource-api.Dockerfile .
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
COPY packages/resource-api packages/resource-api
RUN npx tsc -b packages/resource-api \
 && npm install --omit=dev --no-audit --no-fund --workspace @school/resource-api --include-workspace-root=false \
 && mkdir -p packages/resource-api/node_modules \
 && find node_modules packages/resource-api/node_modules -type f \( -name '*.ts' -o -name '*.mts' -o -name '*.cts' \
      -o -name '*.map' -o -name '*.md' -o -name '*.markdown' \) -delete

FROM ${NODE_IMAGE}
ENV NODE_ENV=production API_HOST=0.0.0.0 API_PORT=8081
WORKDIR /app
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/package.json ./
COPY --from=build /app/packages/shared/package.json packages/shared/
COPY --from=build /app/packages/shared/dist packages/shared/dist
COPY --from=build /app/packages/resource-api/package.json packages/resource-api/
# Dependencies npm could not hoist (another version sits at the root) live beside the package.
COPY --from=build /app/packages/resource-api/node_modules packages/resource-api/node_modules
COPY --from=build /app/packages/resource-api/dist packages/resource-api/dist
# The base image's `node` user, by number (uid and gid 1000): a kubelet can check runAsNonRoot only
# against a numeric user.
USER 1000:1000
EXPOSE 8081
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.API_PORT+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "packages/resource-api/dist/main.js"]
