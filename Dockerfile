# booksync worker / ingress / emulator image: one image, the command picks the role.
# Node 24 LTS; booksync runs on 22 and 24 (better-sqlite3 13 ships its Node-API builds, nothing compiles).
FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# Of the workspaces (packages/), the image takes those booksync runs on: the service contract, the emulator
# (`booksync start` embeds it, `booksync emulator` serves it) and the private files; the vendor doubles are
# the tests' own and stay out, their dependencies with them.
COPY packages/service-contract/package.json ./packages/service-contract/
COPY packages/emulator/package.json ./packages/emulator/
COPY packages/private-files/package.json ./packages/private-files/
RUN npm ci --omit=dev --workspace=@booksync/service-contract --workspace=@booksync/emulator \
    --workspace=@booksync/private-files --include-workspace-root --no-audit --no-fund

FROM node:24-bookworm-slim
# glibc's malloc: two arenas instead of one per thread, and fixed 128 KiB trim and mmap thresholds (glibc
# otherwise raises both after large frees and keeps up to 64 MiB a arena): the worker's threads would hold
# on to freed memory (docs/benchmarks.md, "Memory at scale").
ENV NODE_ENV=production LOG_FORMAT=json BOOKSYNC_DATA_DIR=/data MALLOC_ARENA_MAX=2 \
    MALLOC_TRIM_THRESHOLD_=131072 MALLOC_MMAP_THRESHOLD_=131072
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json tsconfig.json ./
COPY bin ./bin
COPY src ./src
COPY packages/service-contract ./packages/service-contract
COPY packages/emulator ./packages/emulator
COPY packages/private-files ./packages/private-files
RUN mkdir -p /data && chown node:node /data && chmod 700 /data
USER node
VOLUME ["/data"]
ENTRYPOINT ["node", "bin/booksync.js"]
CMD ["--help"]
