# syntax=docker/dockerfile:1
# One image for every cluster process: `docker run <image> <name>` with <name> one of gateway, agents,
# records, memory, memory-worker, files, billing, migrate (docs/deployment.md). Sources run through
# @swc-node/register, as in development (no separate compile step).

# Node 22 LTS, as package.json "engines" and .ci/run (Node 20 reached end of life on 2026-04-30).
ARG NODE_IMAGE=node:22-bookworm-slim

# --- manifests: only what `npm install` needs (package.json files, the lock, tools/, Prisma schemas), so
# the dependency layer below is rebuilt only when one of these changes, not on every source edit.
FROM ${NODE_IMAGE} AS manifests
WORKDIR /src
COPY . .
RUN find . -type f \
      ! -name package.json ! -name package-lock.json \
      ! -path './tools/*' ! -path '*/prisma/*' -delete \
 && find . -mindepth 1 -type d -empty -delete

# --- deps: the whole dependency tree (devDependencies included: the entrypoint needs @swc-node/register
# and @swc/core) and the generated Prisma clients. `npm ci` is not used: it fails when the registry
# lacks another platform's optional binaries that the lock names (docs/deployment.md).
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
ENV ONNXRUNTIME_NODE_INSTALL=skip \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    CHECKPOINT_DISABLE=1 \
    PRISMA_HIDE_UPDATE_MESSAGE=1
COPY --from=manifests /src/ ./
RUN npm install --no-audit --no-fund \
 && node tools/prisma-generate.js

# --- build: sources on top of the dependencies; regenerate Prisma clients (no-op when up to date), build
# the web dashboard into clients/dashboard/dist (the gateway serves it at /dashboard: docs/dashboard.md; the
# deps layer had no dashboard sources, so its postinstall skipped the build; a missing index.html fails
# the image here instead of a 503 in production), then drop build/test-only tools that the running
# processes never load (helm/kubectl layer, CDK, Nx, the dashboard's Vite toolchain, the browser-test drivers).
FROM deps AS build
COPY . .
RUN node tools/prisma-generate.js \
 && node tools/build-dashboard.js \
 && test -f clients/dashboard/dist/index.html \
 && rm -rf node_modules/.cache node_modules/.vite node_modules/@aws-cdk node_modules/aws-cdk-lib node_modules/nx node_modules/@nx \
      node_modules/vite node_modules/@vitejs node_modules/rolldown node_modules/@rolldown node_modules/lightningcss node_modules/lightningcss-* \
      node_modules/playwright-core node_modules/@axe-core

# --- runtime
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    OPS_PORT=9090 \
    DATA_DIR=/data \
    HOME=/tmp \
    ONNXRUNTIME_NODE_INSTALL=skip
WORKDIR /app
# Code and dependencies stay owned by root and read-only to the process user; only /data and /tmp are
# writable (Kubernetes mounts emptyDirs there and sets readOnlyRootFilesystem).
COPY --from=build /app/ /app/
RUN mkdir -p /data && chown 10001:10001 /data
USER 10001:10001
EXPOSE 8080 9090
ENTRYPOINT ["node", "-r", "@swc-node/register", "apps/cluster/src/main.ts"]
CMD ["gateway"]
