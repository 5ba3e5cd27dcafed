# agent-canvas: one image for both roles (AGENT_CANVAS_ROLE=api | worker | all).
#
# The build id is baked in: workers poll Temporal as Worker Deployment version
# WORKER_DEPLOYMENT_NAME:WORKER_BUILD_ID, and a run stays pinned to the version that started it,
# so every image must carry its own. Build it from the package version and the commit, the way
# `npm start` computes it (src/io/temporal/deployment.ts), and tag the image with the same value:
#
#   BUILD_ID="$(node -p 'require("./package.json").version')-$(git rev-parse --short=7 HEAD)"
#   docker build --build-arg BUILD_ID="$BUILD_ID" --build-arg GIT_COMMIT="$(git rev-parse HEAD)" -t agent-canvas:"$BUILD_ID" .
#
# docs/DEPLOY.md describes the stack (docker-compose.yml) and rolling a new version out.
ARG NODE_IMAGE=node:20.19.5-bookworm-slim

# Production dependencies only, installed from the lock file.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE} AS runtime
ARG BUILD_ID
ARG GIT_COMMIT=unknown
# No default build id: an image without one would make every build the same version to Temporal.
RUN test -n "$BUILD_ID" || (echo 'docker build needs --build-arg BUILD_ID=<version>-<commit> (see the top of this Dockerfile)' >&2; exit 1)
LABEL org.opencontainers.image.title="agent-canvas" \
      org.opencontainers.image.description="RAGFlow-compatible agent canvases run as durable Temporal workflows" \
      org.opencontainers.image.version="${BUILD_ID}" \
      org.opencontainers.image.revision="${GIT_COMMIT}" \
      io.temporal.worker-build-id="${BUILD_ID}"
# CodeExec's sandbox: bubblewrap and Python (util-linux's unshare, setpriv and prlimit are in the base image).
RUN apt-get update \
  && apt-get install -y --no-install-recommends bubblewrap python3 ca-certificates \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json tsconfig.json ./
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
COPY api ./api
COPY server ./server
COPY web ./web
COPY examples ./examples
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=9380 \
    METRICS_PORT=9464 \
    DATA_DIR=/app/.data \
    WORKER_BUILD_ID=${BUILD_ID}
RUN mkdir -p /app/.data && chown node:node /app/.data
USER node
# 9380: the API (and /metrics of an api or all process); 9464: /metrics of a worker process.
EXPOSE 9380 9464
CMD ["node", "--import", "tsx", "server/main.ts"]
