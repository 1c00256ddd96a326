# booksync worker / ingress / emulator image: one image, the command picks the role.
FROM node:20-bookworm-slim AS deps
WORKDIR /app
# better-sqlite3 compiles when no prebuilt binary matches.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
ENV NODE_ENV=production LOG_FORMAT=json BOOKSYNC_DATA_DIR=/data
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
