# Rendezvous — `make run` starts everything, `make test` runs every test.
# Both install what they need on a fresh Debian 12 machine (apt-get and pip, as root or via sudo).
SHELL := /bin/bash
export PATH := /opt/swift/usr/bin:$(PATH)
SWIFT ?= swift

APT_PACKAGES := libnghttp2-dev libssl-dev libpq-dev zlib1g-dev libcurl4-openssl-dev libvips-dev nghttp2-client protobuf-compiler libprotobuf-dev \
                postgresql-15 postgresql-15-postgis-3 postgresql-contrib python3 python3-pip openssl curl nginx-light zbar-tools \
                podman runc debootstrap prometheus valgrind gcc
PY_PACKAGES := grpcio grpcio-tools protobuf opentelemetry-proto 'moto[server]' sonora podman-compose==1.0.6 kubernetes-validate
FUZZ_SECONDS ?= 60

.PHONY: deps build release generate test run bench chaos fuzz clean db-start db-stop backup restore proto-baseline images

## deps: install the Debian and Python packages the build, tests and benchmarks need (only those missing).
deps:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	command -v kubectl >/dev/null || missing="$$missing kubernetes-client"; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi
	@python3 -c 'import grpc, grpc_tools, google.protobuf, opentelemetry.proto, moto.server, sonora, podman_compose, kubernetes_validate' 2>/dev/null || \
	  python3 -m pip install -q $(PY_PACKAGES) 2>/dev/null || \
	  python3 -m pip install -q --break-system-packages $(PY_PACKAGES)

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

## generate: Swift contracts from proto-docs/ (Shared/Contracts/Generated, Shared/RPC/Generated) with our protoc plugin.
generate: deps
	$(SWIFT) build --product protoc-gen-rendezvous
	bash Shared/ProtocGen/generate.sh

## proto-baseline: record proto-docs/ as the contract BreakingChangeTests holds it to (run after an
## intended contract change, additions included; commit the baseline with the change).
proto-baseline: deps
	python3 Tests/ContractsTests/Fixtures/breaking.py snapshot --proto-root proto-docs \
	  --out Tests/ContractsTests/Fixtures/baseline/descriptor_set.txtpb

## images: every image from compose/Dockerfile with podman (the services', the edge's, Postgres's, Prometheus'), the
## Swift build stage included; the base images are made locally first when missing (no registry here).
images: deps
	bash compose/images.sh

db-start: deps
	bash compose/local/db.sh start

db-stop:
	bash compose/local/db.sh stop

## backup: a base backup of the local cluster (pg_basebackup) into .data/postgres-backups/<UTC time>, printed;
## with the WAL archive (.data/postgres-wal-archive) it restores to any later moment (README, "Backups").
backup:
	bash compose/local/db.sh backup

## restore: TARGET_TIME='2026-11-27 19:05:00Z' (or '10 minutes ago') restores the newest backup before it and the
## archive up to it into a NEW cluster folder, printed and left stopped; the running cluster is not touched.
restore:
	@[ -n "$(TARGET_TIME)" ] || { echo "usage: make restore TARGET_TIME='2026-11-27 19:05:00Z'" >&2; exit 2; }
	bash compose/local/db.sh restore '$(TARGET_TIME)'

## test: every test — Swift tests (codec, HTTP/2, RPC, Postgres, runtime, identity, gateway client end to end, the
## journeys in containers) and the grpcio interop and conformance suites; the images, the Kubernetes manifests.
# The tests' own sessions acknowledge commits before they reach the disk (PGOPTIONS, which every
# libpq client and our pool pass to the server); the cluster keeps synchronous_commit on, so a
# make run beside make test loses no acknowledged write if the machine crashes.
test: export PGOPTIONS = -c synchronous_commit=off
test: deps
	bash compose/local/db.sh start
	bash Tests/InteropTests/Fixtures/gen_protos.sh
	@# The base images (debootstrap and apt: mostly waiting on the mirror) and discovery's release
	@# from before its newest migration, for EndToEndUpgradeTests (cached by commit), beside the build.
	bash compose/podman/base-images.sh & base=$$!; \
	  SWIFT=$(SWIFT) bash Tests/previous-release.sh discovery >/dev/null & previous=$$!; \
	  $(SWIFT) build --build-tests; built=$$?; \
	  wait $$previous; previous=$$?; wait $$base && [ $$previous = 0 ] && exit $$built
	@# compose/ without containers: config consistency, each executable started with its compose
	@# environment (5-20 s).
	bash compose/validate.sh
	@# The images for real (podman; the Swift build stage included), the Kubernetes manifests
	@# validated against the API schemas and the consumer contracts, and the dev overlay's Pods played.
	bash compose/images.sh
	python3 compose/k8s/check.py
	python3 compose/k8s/test_check.py
	bash compose/k8s/play.sh
	@# Prometheus' rules and dashboards (compose/prometheus): current, valid, their promtool unit tests
	@# (seconds); then make run's stack scraped by its Prometheus: PromQL over the HTTP API, every
	@# metric the rules and dashboards name exported (about 30 s).
	bash compose/prometheus/check.sh
	python3 compose/prometheus/test_stack.py
	@# Two test processes side by side, each one test at a time and on a database of its own
	@# (see the script).
	SWIFT=$(SWIFT) bash Tests/run-swift-tests.sh
	@# Then the journeys through compose's containers (with Prometheus scraping them, the edge's
	@# metrics included), alone: beside the shards (the contract sweep among them) the 2 cores
	@# starved the eight containers and calls ran past their deadlines.
	RV_CONTAINER_TESTS=1 SWIFT=$(SWIFT) bash Tests/run-swift-tests.sh --filter ContainerJourneyTests
	@# Then chaos under load, shortened (150 s; make chaos runs 10 minutes), alone for the same
	@# reason: every fault kind once, kill -9 every 15 s; it fails on a lost or duplicated write.
	RV_CHAOS_BUILD=debug python3 Tests/Benchmarks/chaos.py --duration 150

## run: Postgres, every service, the edge and Prometheus (http://127.0.0.1:7190) in the foreground until Ctrl-C.
run: release db-start
	bash compose/local/run.sh

## bench: RPC benchmarks over the wire (h2load): throughput, latency percentiles, CPU and memory,
## and the runtime's per-call overhead next to a bare server; then the DB-backed RPC next to
## pgbench on the same cluster and identity's authenticated GetAccount next to it (h2load both); then tracing's
## per-call cost on both (no collector, 10 % and 100 % exported over OTLP); then identity's sign-in, refresh and read workloads and an event
## consumer's catch-up (identity-bench, our own gRPC client); then discovery's feed over 100k profiles (a kept first page, and a first page after each own swipe);
## then production's season P&L over 10,000 entries, the membrane query and consent capture;
## then messaging's sends with 10,000 open realtime streams (send → delivery latency, lost,
## duplicated, out of order) next to pgbench of the send path's SQL;
## then media's 2 MiB photo uploads, signed-URL GETs and the reveal of a 5,000-photo event;
## then all five products' journeys at once through the edge, two instances per service (journeys-bench);
## then how many concurrently active users the box holds at the service levels (capacity-bench).
## The benchmarks write to a database of their own in the same cluster (rendezvous_bench): the
## accounts and events they leave would otherwise fill `make run`'s and `make test`'s database
## (hundreds of thousands of anonymous accounts in one app, an event backlog every new consumer
## must read through).
## After each benchmark the archive drops the WAL no restore can use (`db.sh prune-archive`): the
## seeding alone writes gigabytes of it, which a cluster never backed up would otherwise keep.
PRUNE_ARCHIVE = bash compose/local/db.sh prune-archive
bench: export RV_PG_DATABASE = rendezvous_bench
bench: release db-start
	python3 Tests/Benchmarks/rpc_bench.py && $(PRUNE_ARCHIVE)
	python3 Tests/Benchmarks/db_bench.py && $(PRUNE_ARCHIVE)
	python3 Tests/Benchmarks/tracing_bench.py && $(PRUNE_ARCHIVE)
	python3 Tests/Benchmarks/instructions_bench.py unary && $(PRUNE_ARCHIVE)
	python3 Tests/Benchmarks/instructions_bench.py db && $(PRUNE_ARCHIVE)
	python3 Tests/Benchmarks/identity_bench.py && $(PRUNE_ARCHIVE)
	python3 Tests/Benchmarks/discovery_bench.py && $(PRUNE_ARCHIVE)
	python3 Tests/Benchmarks/production_bench.py && $(PRUNE_ARCHIVE)
	python3 Tests/Benchmarks/messaging_bench.py && $(PRUNE_ARCHIVE)
	python3 Tests/Benchmarks/messaging_bench.py calls && $(PRUNE_ARCHIVE)
	python3 Tests/Benchmarks/media_bench.py && $(PRUNE_ARCHIVE)
	python3 Tests/Benchmarks/journeys_bench.py && $(PRUNE_ARCHIVE)
	python3 Tests/Benchmarks/capacity_bench.py && $(PRUNE_ARCHIVE)

## chaos: faults under load across every service for CHAOS_SECONDS (default 600): kill -9 of a random instance
## every 15 s, a SIGSTOP, Postgres stopped in immediate mode, connections terminated mid-transaction, edge
## reloads, a slow media store and icebreaker endpoint, APNs refusing for a minute; then the audit table of
## every acknowledged write (lost, duplicated) and each fault's recovery. On a Postgres cluster of its own.
CHAOS_SECONDS ?= 600
chaos: release
	python3 Tests/Benchmarks/chaos.py --duration $(CHAOS_SECONDS)

## fuzz: libFuzzer on the protobuf decoder and the gRPC deframer for FUZZ_SECONDS.
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) bash Tests/Fuzz/run.sh

clean:
	rm -rf .build .build-* fuzz-artifacts
