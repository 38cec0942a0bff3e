// Placeholder until the Contracts module lands.
