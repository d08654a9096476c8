# syntax=docker/dockerfile:1
# Card Console's BFF and SPA in one image, running the production command of docs/operations.md
# as PID 1 (docs/operations/container.md). Build from the checkout's root:
#   docker build -t card-console .           (or: podman build --format docker -t card-console .)
# NODE_IMAGE is any Debian-based image with node (and npm, for the build stages) at the version
# the project supports; scripts/test-container-image.mjs builds one from Debian's packages and
# the npm registry's node binary when Docker Hub is out of reach. Behind a TLS-inspecting
# proxy, give npm its CA for the build only (never kept in a layer):
#   --secret id=npm_ca,src=/path/to/ca-bundle.pem
ARG NODE_IMAGE=docker.io/library/node:24.21.0-bookworm-slim
ARG PNPM=pnpm@10.34.9

# The workspace manifests alone, so the dependency layers are reused until one of them changes.
FROM ${NODE_IMAGE} AS manifests
WORKDIR /src
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml ./
COPY apps/bff/package.json apps/bff/
COPY apps/web/package.json apps/web/
COPY apps/card-service-sim/package.json apps/card-service-sim/
COPY packages/shared/package.json packages/shared/
COPY bench/package.json bench/

# Builds the SPA (apps/web/dist) and the BFF bundle (apps/bff/dist) with the dev dependencies.
FROM manifests AS build
ARG PNPM
ENV CI=true
# The root (Vitest's config helpers, which the SPA's vite.config.ts imports), the SPA and the
# BFF with the workspace packages they use; not the benchmarks.
RUN --mount=type=cache,id=card-console-pnpm,target=/root/.cache/pnpm-store \
    --mount=type=secret,id=npm_ca \
    if [ -f /run/secrets/npm_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/npm_ca; fi \
 && npx -y "${PNPM}" install --frozen-lockfile --store-dir /root/.cache/pnpm-store \
      --filter card-console --filter "@card-console/web..." --filter "@card-console/bff..."
COPY . .
RUN npx -y "${PNPM}" build

# The BFF's production dependencies only: the bundle keeps npm packages external.
FROM manifests AS runtime-deps
ARG PNPM
ENV CI=true
RUN --mount=type=cache,id=card-console-pnpm,target=/root/.cache/pnpm-store \
    --mount=type=secret,id=npm_ca \
    if [ -f /run/secrets/npm_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/npm_ca; fi \
 && npx -y "${PNPM}" install --frozen-lockfile --prod --store-dir /root/.cache/pnpm-store \
      --filter "@card-console/bff"

FROM ${NODE_IMAGE}
ENV MALLOC_TRIM_THRESHOLD_=131072 \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/var/lib/card-console
WORKDIR /app
# The checkout's layout, which the bundle finds its files by: apps/bff/dist, apps/bff/migrations,
# apps/web/dist, node_modules. Owned by root: the process cannot change its own code.
COPY --from=runtime-deps /src/ ./
COPY --from=build /src/apps/bff/dist apps/bff/dist
COPY --from=build /src/apps/bff/migrations apps/bff/migrations
COPY --from=build /src/apps/web/dist apps/web/dist
RUN mkdir -p /var/lib/card-console && chown 1000:1000 /var/lib/card-console
# The node user of Debian-based node images, by number so "run as non-root" can be verified.
USER 1000:1000
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# No entrypoint script or shell in between: node is PID 1 and gets SIGTERM itself.
ENTRYPOINT []
CMD ["node", "--max-semi-space-size=16", "--heap-growing-percent=20", "apps/bff/dist/index.js"]
