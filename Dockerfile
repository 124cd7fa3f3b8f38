# Identity Connect container image (docs/operations.md, "Docker").
#
#   docker build -t idconnect --build-arg IDCONNECT_BUILD_COMMIT="$(git rev-parse --short=12 HEAD)" .
#   docker run --rm -p 8080:8080 -v "$PWD/console-config:/etc/idconnect:ro" -v idconnect-data:/var/lib/idconnect idconnect
#
# The image carries no configuration of its own: mount yours at /etc/idconnect, with
# `server.issuer` set to the URL clients reach the broker at (the broker refuses to listen on
# 0.0.0.0 without one). A trial with the demo users, no mount needed:
#
#   docker run --rm -p 8080:8080 idconnect serve --dev --config /usr/share/idconnect/demo-config --host 0.0.0.0
#
# Build stage: the same commands CI uses (scripts/install-deps.sh, here only its build part, and
# swift build), in release mode with the Swift runtime linked statically so the runtime image
# needs no Swift toolchain. `.dockerignore` keeps git metadata, build folders and local data out of
# the context; the build argument tells the binary its commit (`idconnect --version`).
FROM swift:6.1-bookworm AS build
WORKDIR /src
COPY . .
ARG IDCONNECT_BUILD_COMMIT=unknown
RUN scripts/install-deps.sh --build-only \
 && IDCONNECT_BUILD_COMMIT="$IDCONNECT_BUILD_COMMIT" swift build -c release --static-swift-stdlib --product idconnect \
 && install -D "$(swift build -c release --show-bin-path)/idconnect" /out/idconnect

# Runtime stage: Debian slim with the shared libraries the binary links (LDAP, XML signatures,
# OpenSSL, SQLite, QR codes, GeoIP), a non-root user, configuration and data as volumes.
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends libsqlite3-0 libssl3 libldap-2.5-0 libxml2 libxmlsec1 libxmlsec1-openssl libqrencode4 libmaxminddb0 zlib1g ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --no-create-home --home-dir /var/lib/idconnect --shell /usr/sbin/nologin idconnect \
 && mkdir -p /var/lib/idconnect /etc/idconnect \
 && chown idconnect:idconnect /var/lib/idconnect \
 && chmod 0700 /var/lib/idconnect
COPY --from=build /out/idconnect /usr/local/bin/idconnect
# The demo configuration (users alice and bob, a demo app secret) is an example to try, never the
# image's configuration: it is used only when named with --config, and `serve --dev` is needed to
# listen on 0.0.0.0 without an issuer.
COPY console-config /usr/share/idconnect/demo-config
VOLUME ["/etc/idconnect", "/var/lib/idconnect"]
WORKDIR /var/lib/idconnect
USER 10001:10001
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["/usr/local/bin/idconnect", "healthcheck", "--url", "http://127.0.0.1:8080/healthz"]
ENTRYPOINT ["/usr/local/bin/idconnect"]
CMD ["serve", "--config", "/etc/idconnect", "--host", "0.0.0.0", "--port", "8080", \
     "--storage", "sqlite:/var/lib/idconnect/idconnect.sqlite"]
