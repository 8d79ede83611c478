# One image for every role: `tidings serve --role api|projector|sagas`.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.base.json ./
COPY packages packages
COPY projections projections
COPY services services
# Only the service is built: tests, test-only code (each package's src/testing, the testkit) and benches stay
# out of the context (.dockerignore), so none of it reaches the image.
RUN npm ci --no-audit --no-fund && npx tsc -b services/cli && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000
WORKDIR /app
COPY --from=build /app /app
# The default command is embedded mode, which keeps its data in DATA_DIR (./data, mount a volume there).
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s CMD node -e "fetch('http://127.0.0.1:'+process.env.PORT+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["node", "services/cli/dist/main.js"]
CMD ["serve", "--role", "all"]
