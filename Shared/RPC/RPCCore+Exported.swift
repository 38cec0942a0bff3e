// RPC re-exports RPCCore, the transport-free half of gRPC it was split from (status, metadata,
// call options, the typed call API), so that every `import RPC` keeps seeing those types.
@_exported public import RPCCore
