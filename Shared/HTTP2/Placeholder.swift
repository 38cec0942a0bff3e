// Placeholder until the HTTP2 module lands.
