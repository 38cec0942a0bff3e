// Placeholder until the Runtime module lands.
