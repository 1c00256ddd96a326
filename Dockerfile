# booksync worker / ingress / emulator image: one image, the command picks the role.
# Node 24 LTS; booksync runs on 22 and 24 (better-sqlite3 13 ships its Node-API builds, nothing compiles).
FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:24-bookworm-slim
# Two glibc malloc arenas instead of one per thread: the worker's threads otherwise hold on to freed memory
# (docs/benchmarks.md, "Memory at scale").
ENV NODE_ENV=production LOG_FORMAT=json BOOKSYNC_DATA_DIR=/data MALLOC_ARENA_MAX=2
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json tsconfig.json ./
COPY bin ./bin
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
RUN mkdir -p /data && chown node:node /data && chmod 700 /data
USER node
VOLUME ["/data"]
ENTRYPOINT ["node", "bin/booksync.js"]
CMD ["--help"]
