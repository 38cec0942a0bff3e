"""Shared bits of the Python interop fixtures: loading the generated stubs."""

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GEN = os.environ.get("INTEROP_GEN_DIR", os.path.join(HERE, "gen"))

ECHO_INITIAL_KEY = "x-grpc-test-echo-initial"
ECHO_TRAILING_KEY = "x-grpc-test-echo-trailing-bin"


def load_protos():
    """Import the stubs compiled from proto-docs/ (running gen_protos.sh if needed).

    The modules live in GEN/grpc/testing/... and import each other as
    `grpc.testing.*`, so GEN/grpc is appended to grpcio's package path.
    Returns (empty_pb2, messages_pb2, test_pb2_grpc, health_pb2, health_pb2_grpc).
    """
    if not os.path.exists(os.path.join(GEN, "grpc", "testing", "test_pb2_grpc.py")):
        subprocess.run(["bash", os.path.join(HERE, "gen_protos.sh"), GEN], check=True,
                       stdout=sys.stderr)
    import grpc

    extra = os.path.join(GEN, "grpc")
    if extra not in grpc.__path__:
        grpc.__path__.append(extra)
    if GEN not in sys.path:
        sys.path.append(GEN)
    from grpc.testing import empty_pb2, messages_pb2, test_pb2_grpc  # noqa: E402
    from grpc.health.v1 import health_pb2, health_pb2_grpc  # noqa: E402

    return empty_pb2, messages_pb2, test_pb2_grpc, health_pb2, health_pb2_grpc
