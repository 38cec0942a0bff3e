// Placeholder until the Postgres module lands.
