# Identity Connect container image.
# Build stage: the same commands CI uses (scripts/install-deps.sh, here only its build part, and
# swift build), in release mode with the Swift runtime linked statically so the runtime image
# needs no Swift toolchain.
FROM swift:6.1-bookworm AS build
WORKDIR /src
COPY . .
RUN scripts/install-deps.sh --build-only \
 && swift build -c release --static-swift-stdlib --product idconnect \
 && install -D "$(swift build -c release --show-bin-path)/idconnect" /out/idconnect

# Runtime stage: Debian slim, non-root, configuration and data as volumes.
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends libsqlite3-0 libssl3 libldap-2.5-0 libxml2 libxmlsec1 libxmlsec1-openssl libqrencode4 libmaxminddb0 ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home /var/lib/idconnect idconnect \
 && mkdir -p /var/lib/idconnect /etc/idconnect \
 && chown idconnect /var/lib/idconnect
COPY --from=build /out/idconnect /usr/local/bin/idconnect
COPY console-config /etc/idconnect
VOLUME ["/etc/idconnect", "/var/lib/idconnect"]
USER idconnect
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/idconnect"]
CMD ["serve", "--config", "/etc/idconnect", "--host", "0.0.0.0", "--port", "8080", \
     "--storage", "sqlite:/var/lib/idconnect/idconnect.sqlite"]
