# Rendezvous — one command to run everything, one to test everything.
SHELL := /bin/bash
SWIFT ?= $(shell command -v swift || echo /opt/swift/usr/bin/swift)
export PATH := /opt/swift/usr/bin:$(PATH)

APT_PACKAGES := libnghttp2-dev libssl-dev libpq-dev zlib1g-dev nghttp2-client protobuf-compiler \
                postgresql-15 postgresql-15-postgis-3 python3 python3-pip
PY_PACKAGES := grpcio grpcio-tools protobuf

.PHONY: deps build release test run bench fuzz clean

## deps: install the Debian and Python packages the build and tests need (only when missing).
deps:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi
	@python3 -c 'import grpc, grpc_tools, google.protobuf' 2>/dev/null || \
	  python3 -m pip install -q $(PY_PACKAGES) || python3 -m pip install -q --break-system-packages $(PY_PACKAGES)

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

test: deps
	bash compose/local/db.sh start
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

clean:
	rm -rf .build .build-* fuzz-artifacts
