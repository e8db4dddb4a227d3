# Portal Launcher image, built on the release directory (nothing is fetched while building, and
# nothing at start: the npm packages are vendored in it):
#   deno task release && docker build -t portal-launcher:1.0.0 .
# DENO_VERSION must be the Deno that built the release (dist/portal-launcher/release.json).
# How it was checked: no Docker daemon and no image registry were reachable where it was written,
# so the image was not built there. test/tools/release_test.ts reads this file and runs what the
# image runs: its ENTRYPOINT and CMD with its ENV, the COPY destination and volume mapped into a
# temporary directory holding a copy of the release, offline (empty DENO_DIR, no registry); it
# checks the HEALTHCHECK command against the started service.
ARG DENO_VERSION=2.9.6
FROM denoland/deno:debian-${DENO_VERSION}
COPY dist/portal-launcher /opt/portal-launcher
ENV HOST=0.0.0.0 PORT=8000 DATA_DIR=/var/lib/portal-launcher DENO_DIR=/var/cache/portal-launcher
RUN mkdir -p /var/lib/portal-launcher /var/cache/portal-launcher && \
  chown deno:deno /var/lib/portal-launcher /var/cache/portal-launcher
USER deno
VOLUME /var/lib/portal-launcher
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s \
  CMD ["deno", "eval", "const r = await fetch('http://127.0.0.1:8000/healthz'); Deno.exit(r.ok ? 0 : 1)"]
ENTRYPOINT ["/opt/portal-launcher/bin/portal-launcher"]
CMD ["serve"]
