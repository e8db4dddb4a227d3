# Portal Launcher image, built on the release directory (nothing is fetched while building, and
# nothing at start: the npm packages are vendored in it):
#   deno task release && docker build -t portal-launcher:1.0.0 .
# DENO_VERSION must be the Deno that built the release (dist/portal-launcher/release.json).
# How it was checked: with no Docker daemon or registry where it was written, buildah 1.28 built
# it (`buildah bud --pull-never`) on a stand-in denoland/deno:debian-2.9.6 (Debian bookworm
# minbase from debootstrap, Deno 2.9.6 in /usr/bin, user deno 1993); the container ran as deno
# with the npm registry unreachable, answered /healthz, its HEALTHCHECK command exited 0, and
# `migrate` applied the schema to PostgreSQL. test/tools/release_test.ts runs its ENTRYPOINT and
# CMD with its ENV (paths mapped into a temporary directory) against a copy of the release,
# offline, and its HEALTHCHECK.
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
