// Placeholder until the RPC module lands.
