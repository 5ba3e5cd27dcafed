# agent-canvas API and worker image (the same image runs either role: AGENT_CANVAS_ROLE=api|worker).
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund && npm cache clean --force
COPY . .
ENV NODE_ENV=production PORT=9380 HOST=0.0.0.0
EXPOSE 9380
CMD ["node", "--import", "tsx", "server/main.ts"]
