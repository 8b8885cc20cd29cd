# Insight Relay: one image for every role (ROLE=web, worker or scheduler; see docker-compose.yml).
ARG NODE_IMAGE=node:22-slim

# --- build: bundle the TypeScript into dist/main.js and dist/doctor.js (scripts/build.ts) ------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts/build.ts ./scripts/
COPY scripts/bundle ./scripts/bundle
COPY src ./src
RUN npm run build

# --- runtime: production dependencies and the bundled app, as the unprivileged `node` user ----
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    PORT=3000 \
    SPOOL_DIR=/app/data/spool
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# The spool must be writable by the app, and exist in the image so a volume mounted there
# starts with the same owner.
RUN mkdir -p /app/data/spool && chown -R node:node /app/data
USER node
EXPOSE 3000
# The Node flags of `npm start`. The heap limit: under 2 GiB, V8 lets the heap grow to about 1.6x
# what is live between collections instead of 4x (peak RSS at 100 connections about 150 MB
# instead of 230-250 MB, in runs of bench:pipeline).
# Two V8 helper threads instead of four: about 2 MB less idle RSS; throughput and CPU per
# delivery moved by less than the bench's spread (docs/performance.md, "Memory").
# Change them with `command:` in docker-compose.yml.
CMD ["node", "--max-old-space-size=1024", "--v8-pool-size=2", "dist/main.js"]
